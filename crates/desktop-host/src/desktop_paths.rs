//! The user's real desktop folders (Downloads, Documents, Desktop, Pictures, Music, Videos, home).
//!
//! Two ways in:
//! - [`DesktopPaths::detect`] asks the platform through the `dirs` crate (which honours `XDG_*` variables and
//!   `user-dirs.dirs` on Linux, the known-folder API on Windows and the standard folders on macOS).
//! - [`DesktopPaths::from_env`] resolves the same folders from an explicit home folder and variable map, with the
//!   XDG rules written out here, so tests never touch the process environment.
//!
//! Contract: when the platform names no Downloads folder (a headless Linux without xdg-user-dirs), Downloads
//! falls back to `$HOME/Downloads` and the fallback is logged. Other folders that the platform does not name stay
//! unknown ([`DesktopPaths::folder`] returns `None`) rather than being guessed.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A folder the desktop tools may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KnownFolder {
    /// The downloads folder (`XDG_DOWNLOAD_DIR`).
    Downloads,
    /// The documents folder (`XDG_DOCUMENTS_DIR`).
    Documents,
    /// The desktop folder (`XDG_DESKTOP_DIR`).
    Desktop,
    /// The pictures folder (`XDG_PICTURES_DIR`).
    Pictures,
    /// The music folder (`XDG_MUSIC_DIR`).
    Music,
    /// The videos folder (`XDG_VIDEOS_DIR`).
    Videos,
}

impl KnownFolder {
    /// Every known folder, in the order tools list them.
    pub const ALL: [KnownFolder; 6] = [
        KnownFolder::Downloads,
        KnownFolder::Documents,
        KnownFolder::Desktop,
        KnownFolder::Pictures,
        KnownFolder::Music,
        KnownFolder::Videos,
    ];

    /// The wire name (`"downloads"`, `"documents"`, …), as tools accept it in their arguments.
    pub fn as_str(self) -> &'static str {
        match self {
            KnownFolder::Downloads => "downloads",
            KnownFolder::Documents => "documents",
            KnownFolder::Desktop => "desktop",
            KnownFolder::Pictures => "pictures",
            KnownFolder::Music => "music",
            KnownFolder::Videos => "videos",
        }
    }

    /// Parses a wire name, case-insensitively.
    pub fn parse(name: &str) -> Option<KnownFolder> {
        KnownFolder::ALL
            .into_iter()
            .find(|folder| folder.as_str().eq_ignore_ascii_case(name.trim()))
    }

    fn xdg_key(self) -> &'static str {
        match self {
            KnownFolder::Downloads => "XDG_DOWNLOAD_DIR",
            KnownFolder::Documents => "XDG_DOCUMENTS_DIR",
            KnownFolder::Desktop => "XDG_DESKTOP_DIR",
            KnownFolder::Pictures => "XDG_PICTURES_DIR",
            KnownFolder::Music => "XDG_MUSIC_DIR",
            KnownFolder::Videos => "XDG_VIDEOS_DIR",
        }
    }
}

impl fmt::Display for KnownFolder {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// Where the Downloads folder came from; the fallback is worth telling the user about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DownloadsSource {
    /// The platform (or `user-dirs.dirs` / `XDG_DOWNLOAD_DIR`) named it.
    Platform,
    /// The platform named none; `$HOME/Downloads` is used instead.
    HomeFallback,
}

/// The resolved desktop folders of one user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DesktopPaths {
    home: PathBuf,
    downloads: PathBuf,
    downloads_source: DownloadsSource,
    others: HashMap<KnownFolder, PathBuf>,
}

/// An explicit environment for [`DesktopPaths::from_env`]: the home folder and the variables to consult
/// (`XDG_CONFIG_HOME`, `XDG_*_DIR`).
#[derive(Clone, Debug, Default)]
pub struct DesktopEnv {
    /// The user's home folder (`$HOME`).
    pub home: PathBuf,
    /// Environment variables; only the XDG ones are read.
    pub vars: HashMap<String, String>,
}

impl DesktopPaths {
    /// Asks the platform for the user's folders. Returns `None` only when not even a home folder is known.
    pub fn detect() -> Option<DesktopPaths> {
        let home = dirs::home_dir()?;
        let mut others = HashMap::new();
        let platform_folders = [
            (KnownFolder::Documents, dirs::document_dir()),
            (KnownFolder::Desktop, dirs::desktop_dir()),
            (KnownFolder::Pictures, dirs::picture_dir()),
            (KnownFolder::Music, dirs::audio_dir()),
            (KnownFolder::Videos, dirs::video_dir()),
        ];
        for (folder, path) in platform_folders {
            if let Some(path) = path {
                others.insert(folder, path);
            }
        }
        Some(DesktopPaths::assemble(home, dirs::download_dir(), others))
    }

    /// Resolves the folders from an explicit environment with the XDG user-dirs rules: a `XDG_*_DIR` variable
    /// wins, then the line in `$XDG_CONFIG_HOME/user-dirs.dirs` (default `$HOME/.config`); values may use
    /// `$HOME`. A folder that resolves to the home folder itself counts as "not set", as xdg-user-dirs does.
    pub fn from_env(env: &DesktopEnv) -> DesktopPaths {
        let config_home = env
            .vars
            .get("XDG_CONFIG_HOME")
            .filter(|value| Path::new(value).is_absolute())
            .map(PathBuf::from)
            .unwrap_or_else(|| env.home.join(".config"));
        let user_dirs =
            std::fs::read_to_string(config_home.join("user-dirs.dirs")).unwrap_or_default();
        let file_values = parse_user_dirs(&user_dirs, &env.home);
        let resolve = |folder: KnownFolder| -> Option<PathBuf> {
            let from_var = env
                .vars
                .get(folder.xdg_key())
                .map(|value| expand_home(value, &env.home));
            from_var
                .or_else(|| file_values.get(folder.xdg_key()).cloned())
                .filter(|path| path != &env.home)
        };
        let others = KnownFolder::ALL
            .into_iter()
            .filter(|folder| *folder != KnownFolder::Downloads)
            .filter_map(|folder| resolve(folder).map(|path| (folder, path)))
            .collect();
        DesktopPaths::assemble(env.home.clone(), resolve(KnownFolder::Downloads), others)
    }

    /// Builds paths from explicit folders (for tests and for callers that already know them). Folders missing
    /// from `others` are unknown; a missing Downloads folder falls back to `home/Downloads`.
    pub fn from_folders(
        home: PathBuf,
        downloads: Option<PathBuf>,
        others: HashMap<KnownFolder, PathBuf>,
    ) -> Self {
        DesktopPaths::assemble(home, downloads, others)
    }

    fn assemble(
        home: PathBuf,
        downloads: Option<PathBuf>,
        mut others: HashMap<KnownFolder, PathBuf>,
    ) -> Self {
        others.remove(&KnownFolder::Downloads);
        let (downloads, downloads_source) = match downloads {
            Some(path) => (path, DownloadsSource::Platform),
            None => {
                let fallback = home.join("Downloads");
                tracing::info!(
                    target: "desktop_host::desktop_paths",
                    path = %fallback.display(),
                    "the platform names no Downloads folder (no xdg-user-dirs entry); using $HOME/Downloads"
                );
                (fallback, DownloadsSource::HomeFallback)
            }
        };
        DesktopPaths {
            home,
            downloads,
            downloads_source,
            others,
        }
    }

    /// The home folder.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The Downloads folder (always known, possibly the fallback).
    pub fn downloads(&self) -> &Path {
        &self.downloads
    }

    /// Whether Downloads came from the platform or from the `$HOME/Downloads` fallback.
    pub fn downloads_source(&self) -> DownloadsSource {
        self.downloads_source
    }

    /// The path of a known folder, or `None` when the platform names none.
    pub fn folder(&self, folder: KnownFolder) -> Option<&Path> {
        match folder {
            KnownFolder::Downloads => Some(&self.downloads),
            KnownFolder::Documents
            | KnownFolder::Desktop
            | KnownFolder::Pictures
            | KnownFolder::Music
            | KnownFolder::Videos => self.others.get(&folder).map(PathBuf::as_path),
        }
    }
}

/// Parses `user-dirs.dirs` lines such as `XDG_DOWNLOAD_DIR="$HOME/Downloads"`.
fn parse_user_dirs(text: &str, home: &Path) -> HashMap<String, PathBuf> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.split_once('='))
        .filter_map(|(key, value)| {
            let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
            Some((key.trim().to_owned(), expand_home(value, home)))
        })
        .collect()
}

/// Expands a leading `$HOME` (the only variable user-dirs.dirs allows); other relative values are taken as
/// relative to home, absolute ones as they are.
fn expand_home(value: &str, home: &Path) -> PathBuf {
    if value == "$HOME" {
        return home.to_path_buf();
    }
    if let Some(rest) = value.strip_prefix("$HOME/") {
        return home.join(rest);
    }
    let path = PathBuf::from(value);
    if path.is_absolute() {
        path
    } else {
        home.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn env_with(home: &Path, vars: &[(&str, &str)]) -> DesktopEnv {
        DesktopEnv {
            home: home.to_path_buf(),
            vars: vars
                .iter()
                .map(|(key, value)| ((*key).to_owned(), (*value).to_owned()))
                .collect(),
        }
    }

    #[test]
    fn user_dirs_file_names_the_folders() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".config")).unwrap();
        std::fs::write(
            home.path().join(".config/user-dirs.dirs"),
            "# written by xdg-user-dirs-update\nXDG_DOWNLOAD_DIR=\"$HOME/下载\"\nXDG_DOCUMENTS_DIR=\"$HOME/文档\"\n\
             XDG_MUSIC_DIR=\"/srv/music\"\nXDG_VIDEOS_DIR=\"$HOME\"\n",
        )
        .unwrap();
        let paths = DesktopPaths::from_env(&env_with(home.path(), &[]));
        assert_eq!(paths.downloads(), home.path().join("下载"));
        assert_eq!(paths.downloads_source(), DownloadsSource::Platform);
        assert_eq!(
            paths.folder(KnownFolder::Documents),
            Some(home.path().join("文档").as_path())
        );
        assert_eq!(
            paths.folder(KnownFolder::Music),
            Some(Path::new("/srv/music"))
        );
        // A folder equal to home means "disabled" in xdg-user-dirs.
        assert_eq!(paths.folder(KnownFolder::Videos), None);
        assert_eq!(paths.folder(KnownFolder::Pictures), None);
    }

    #[test]
    fn xdg_variables_win_over_the_file_and_config_home_moves_the_file() {
        let home = tempfile::tempdir().unwrap();
        let config = home.path().join("elsewhere");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(
            config.join("user-dirs.dirs"),
            "XDG_DESKTOP_DIR=\"$HOME/Schreibtisch\"\n",
        )
        .unwrap();
        let paths = DesktopPaths::from_env(&env_with(
            home.path(),
            &[
                ("XDG_CONFIG_HOME", config.to_str().unwrap()),
                ("XDG_DOWNLOAD_DIR", "$HOME/dl"),
            ],
        ));
        assert_eq!(paths.downloads(), home.path().join("dl"));
        assert_eq!(
            paths.folder(KnownFolder::Desktop),
            Some(home.path().join("Schreibtisch").as_path())
        );
    }

    #[test]
    fn headless_home_without_user_dirs_falls_back_to_home_downloads() {
        let home = tempfile::tempdir().unwrap();
        let paths = DesktopPaths::from_env(&env_with(home.path(), &[]));
        assert_eq!(paths.downloads(), home.path().join("Downloads"));
        assert_eq!(paths.downloads_source(), DownloadsSource::HomeFallback);
        assert_eq!(paths.folder(KnownFolder::Documents), None);
    }

    #[test]
    fn folder_names_parse_case_insensitively() {
        assert_eq!(
            KnownFolder::parse(" Documents "),
            Some(KnownFolder::Documents)
        );
        assert_eq!(
            KnownFolder::parse("downloads"),
            Some(KnownFolder::Downloads)
        );
        assert_eq!(KnownFolder::parse("etc"), None);
    }
}
