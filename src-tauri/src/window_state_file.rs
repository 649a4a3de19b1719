//! The file that keeps the main window's geometry between runs: `window-state.json` in the app's config folder
//! (beside `settings.json`), one [`SavedGeometry`] as JSON. Written whole into a temporary file and renamed over
//! the old one, so a crash mid-write leaves the previous geometry, never half a file.

use std::path::{Path, PathBuf};

use crate::window_geometry::SavedGeometry;

/// The file name inside the config folder.
pub(crate) const WINDOW_STATE_FILE_NAME: &str = "window-state.json";

/// Why the geometry could not be read or written. Never fatal: the window then opens at its default geometry.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WindowStateFileError {
    #[error("cannot read the window state {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the window state {path} is not valid, ignoring it: {source}")]
    Invalid {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("cannot write the window state {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The saved geometry; `Ok(None)` when nothing was saved yet.
pub(crate) fn load(path: &Path) -> Result<Option<SavedGeometry>, WindowStateFileError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(WindowStateFileError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|source| WindowStateFileError::Invalid {
            path: path.to_path_buf(),
            source,
        })
}

/// Replaces the saved geometry, creating the folder when needed.
pub(crate) fn store(path: &Path, geometry: &SavedGeometry) -> Result<(), WindowStateFileError> {
    let write_error = |source| WindowStateFileError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).map_err(write_error)?;
    }
    let mut json = serde_json::to_vec_pretty(geometry)
        .map_err(|error| write_error(std::io::Error::other(error)))?;
    json.push(b'\n');
    let temporary = path.with_extension("json.tmp");
    std::fs::write(&temporary, json).map_err(write_error)?;
    std::fs::rename(&temporary, path).map_err(write_error)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    const GEOMETRY: SavedGeometry = SavedGeometry {
        x: -20,
        y: 40,
        width: 900,
        height: 700,
        maximized: true,
    };

    #[test]
    fn a_stored_geometry_loads_back_and_leaves_no_temporary_file() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder
            .path()
            .join("config/pi-desktop")
            .join(WINDOW_STATE_FILE_NAME);

        store(&path, &GEOMETRY).unwrap();

        assert_eq!(load(&path).unwrap(), Some(GEOMETRY));
        let names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, [WINDOW_STATE_FILE_NAME]);
    }

    #[test]
    fn storing_again_replaces_the_geometry() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join(WINDOW_STATE_FILE_NAME);
        store(&path, &GEOMETRY).unwrap();
        let moved = SavedGeometry {
            x: 300,
            maximized: false,
            ..GEOMETRY
        };

        store(&path, &moved).unwrap();

        assert_eq!(load(&path).unwrap(), Some(moved));
    }

    #[test]
    fn no_file_means_nothing_saved_yet() {
        let folder = tempfile::tempdir().unwrap();

        assert_eq!(
            load(&folder.path().join(WINDOW_STATE_FILE_NAME)).unwrap(),
            None
        );
    }

    #[test]
    fn a_damaged_file_is_a_typed_error_naming_it() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join(WINDOW_STATE_FILE_NAME);
        std::fs::write(&path, br#"{"x": 10, "y": "#).unwrap();

        let error = load(&path).unwrap_err();

        assert!(
            matches!(error, WindowStateFileError::Invalid { path: ref named, .. } if named == &path),
            "{error:?}"
        );
        assert!(
            error.to_string().contains(WINDOW_STATE_FILE_NAME),
            "{error}"
        );
    }

    #[test]
    fn an_unwritable_folder_is_a_typed_error() {
        let folder = tempfile::tempdir().unwrap();
        let occupied = folder.path().join("occupied");
        std::fs::write(&occupied, "a file where the folder should be").unwrap();

        let error = store(&occupied.join(WINDOW_STATE_FILE_NAME), &GEOMETRY).unwrap_err();

        assert!(
            matches!(error, WindowStateFileError::Write { .. }),
            "{error:?}"
        );
    }
}
