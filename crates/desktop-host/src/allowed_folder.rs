//! Confinement of tool paths to one allowed folder.
//!
//! Contract: every path a desktop tool touches goes through [`AllowedFolder::resolve`], which joins the requested
//! path onto the folder, canonicalises the result (following every symlink) and refuses it unless it is still
//! inside the canonical folder. So `..` that climbs out, absolute paths elsewhere and symlinks pointing outside
//! are all refused the same way, while `a/../b` or a symlink to another file inside the folder are fine.

use std::io;
use std::path::{Component, Path, PathBuf};

/// A folder the tools may read, canonicalised once at construction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedFolder {
    root: PathBuf,
}

/// Why a path was refused or could not be resolved. The `Display` texts hold absolute paths: they are for the
/// diagnostics log only, never for the model (see `desktop_tools::ToolFailure`).
#[derive(Debug, thiserror::Error)]
pub enum ConfinementError {
    /// The allowed folder itself is missing or unreadable.
    #[error("allowed folder {root} is not accessible: {source}")]
    RootUnavailable {
        /// The folder as configured.
        root: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The requested path resolves outside the allowed folder.
    #[error("path {requested:?} resolves to {resolved}, outside the allowed folder {root}")]
    Outside {
        /// The path as the caller gave it.
        requested: String,
        /// Where it really leads.
        resolved: PathBuf,
        /// The canonical allowed folder.
        root: PathBuf,
    },
    /// The requested path climbs out lexically (`..` past the root) and does not exist to be resolved.
    #[error("path {requested:?} climbs out of the allowed folder {root}")]
    ClimbsOut {
        /// The path as the caller gave it.
        requested: String,
        /// The canonical allowed folder.
        root: PathBuf,
    },
    /// The requested path does not exist (or a component is unreadable).
    #[error("path {path} cannot be resolved: {source}")]
    NotFound {
        /// The joined, not yet canonical path.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

impl AllowedFolder {
    /// Canonicalises `root`. Fails when the folder does not exist or cannot be read.
    pub fn new(root: &Path) -> Result<AllowedFolder, ConfinementError> {
        let root =
            std::fs::canonicalize(root).map_err(|source| ConfinementError::RootUnavailable {
                root: root.to_path_buf(),
                source,
            })?;
        Ok(AllowedFolder { root })
    }

    /// The canonical folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves `requested` (relative to the folder; an absolute path is taken as it is) to a canonical path
    /// inside the folder, or refuses it. An empty request means the folder itself.
    ///
    /// Listings show non-UTF-8 names lossily (with U+FFFD); a requested component holding U+FFFD that does not
    /// exist as written is matched against the lossy names in its folder, so such files can still be read when
    /// exactly one entry matches.
    pub fn resolve(&self, requested: &str) -> Result<PathBuf, ConfinementError> {
        let mut joined = self.root.join(requested.trim());
        if requested.contains('\u{fffd}') && std::fs::symlink_metadata(&joined).is_err() {
            joined = match_lossy_components(&self.root, Path::new(requested.trim()));
        }
        match std::fs::canonicalize(&joined) {
            Ok(resolved) if resolved.starts_with(&self.root) => Ok(resolved),
            Ok(resolved) => Err(ConfinementError::Outside {
                requested: requested.to_owned(),
                resolved,
                root: self.root.clone(),
            }),
            Err(source) => {
                // A missing path that would lie outside anyway is reported as a refusal, so the model cannot
                // probe which outside paths exist.
                if climbs_out(Path::new(requested.trim())) {
                    Err(ConfinementError::ClimbsOut {
                        requested: requested.to_owned(),
                        root: self.root.clone(),
                    })
                } else {
                    Err(ConfinementError::NotFound {
                        path: joined,
                        source,
                    })
                }
            }
        }
    }

    /// The path of `canonical` relative to the folder, with `/` separators (lossy for non-UTF-8 names).
    pub fn relative_display(&self, canonical: &Path) -> String {
        relative_display(&self.root, canonical)
    }
}

/// `path` relative to `root` with `/` separators, lossy for non-UTF-8 names; empty for the root itself.
pub(crate) fn relative_display(root: &Path, path: &Path) -> String {
    let relative = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<String> = relative
        .components()
        .filter_map(|component| match component {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            Component::Prefix(_)
            | Component::RootDir
            | Component::CurDir
            | Component::ParentDir => None,
        })
        .collect();
    parts.join("/")
}

/// Rebuilds `relative` under `root`, replacing each component that holds U+FFFD and does not exist by the one
/// entry of its folder whose lossy name equals it (left as written when none or several match).
fn match_lossy_components(root: &Path, relative: &Path) -> PathBuf {
    let mut current = root.to_path_buf();
    for component in relative.components() {
        let Component::Normal(part) = component else {
            current.push(component.as_os_str());
            continue;
        };
        let candidate = current.join(part);
        let wanted = part.to_string_lossy();
        if !wanted.contains('\u{fffd}') || std::fs::symlink_metadata(&candidate).is_ok() {
            current = candidate;
            continue;
        }
        let matches: Vec<PathBuf> = std::fs::read_dir(&current)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .filter(|entry| entry.file_name().to_string_lossy() == wanted)
                    .map(|entry| entry.path())
                    .take(2)
                    .collect()
            })
            .unwrap_or_default();
        current = match matches.as_slice() {
            [only] => only.clone(),
            _ => candidate,
        };
    }
    current
}

/// Whether a path, read lexically, is absolute or goes above its starting folder at some point.
fn climbs_out(path: &Path) -> bool {
    let mut depth: i64 = 0;
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => return true,
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            Component::Normal(_) => depth += 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder_with_outside() -> (tempfile::TempDir, AllowedFolder) {
        let temp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(temp.path().join("allowed/sub")).unwrap();
        std::fs::write(temp.path().join("allowed/sub/a.txt"), "a").unwrap();
        std::fs::write(temp.path().join("secret.txt"), "s").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(
                temp.path().join("secret.txt"),
                temp.path().join("allowed/escape"),
            )
            .unwrap();
            std::os::unix::fs::symlink(
                temp.path().join("allowed/sub/a.txt"),
                temp.path().join("allowed/inside"),
            )
            .unwrap();
        }
        let allowed = AllowedFolder::new(&temp.path().join("allowed")).unwrap();
        (temp, allowed)
    }

    #[test]
    fn paths_inside_resolve_even_through_dot_dot() {
        let (_temp, allowed) = folder_with_outside();
        let resolved = allowed.resolve("sub/../sub/a.txt").unwrap();
        assert_eq!(allowed.relative_display(&resolved), "sub/a.txt");
        assert_eq!(allowed.resolve("").unwrap(), allowed.root());
    }

    #[test]
    fn dot_dot_and_absolute_paths_that_escape_are_refused() {
        let (temp, allowed) = folder_with_outside();
        assert!(matches!(
            allowed.resolve("../secret.txt"),
            Err(ConfinementError::Outside { .. })
        ));
        let absolute = temp.path().join("secret.txt");
        assert!(matches!(
            allowed.resolve(absolute.to_str().unwrap()),
            Err(ConfinementError::Outside { .. })
        ));
        assert!(matches!(
            allowed.resolve("../../nope/missing"),
            Err(ConfinementError::ClimbsOut { .. })
        ));
        assert!(matches!(
            allowed.resolve("sub/missing.txt"),
            Err(ConfinementError::NotFound { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn lossy_names_from_listings_resolve_to_the_real_non_utf8_file() {
        use std::os::unix::ffi::OsStrExt;
        let (_temp, allowed) = folder_with_outside();
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
        std::fs::write(allowed.root().join("sub").join(name), "menu").unwrap();
        let resolved = allowed.resolve("sub/caf\u{fffd}.txt").unwrap();
        assert_eq!(std::fs::read_to_string(resolved).unwrap(), "menu");
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_judged_by_their_target() {
        let (_temp, allowed) = folder_with_outside();
        assert!(matches!(
            allowed.resolve("escape"),
            Err(ConfinementError::Outside { .. })
        ));
        let inside = allowed.resolve("inside").unwrap();
        assert_eq!(allowed.relative_display(&inside), "sub/a.txt");
    }
}
