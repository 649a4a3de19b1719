//! Commands about the app itself.

use serde::Serialize;
use tauri::{AppHandle, Manager as _, Runtime};
use tauri_plugin_opener::OpenerExt as _;

use crate::command_error::{CommandError, ErrorCode};

/// What the UI shows about the running app (the About section, bug reports).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AppInfo {
    /// The product name from `tauri.conf.json`.
    pub name: String,
    /// The app's version (semver, from Cargo.toml).
    pub version: String,
    /// The folder of the log files (see `logging`), or `None` when the platform names none.
    pub log_dir: Option<String>,
    /// The operating system the app was built for (`std::env::consts::OS`: `linux`, `macos`, `windows`).
    pub os: String,
    /// The CPU architecture the app was built for (`std::env::consts::ARCH`: `x86_64`, `aarch64`).
    pub arch: String,
}

/// Returns the app's name, version, log folder and platform. Never fails.
#[tauri::command]
pub(crate) fn app_info<R: Runtime>(app: AppHandle<R>) -> AppInfo {
    let package_info = app.package_info();
    AppInfo {
        name: package_info.name.clone(),
        version: package_info.version.to_string(),
        log_dir: app
            .path()
            .app_log_dir()
            .ok()
            .map(|dir| dir.display().to_string()),
        os: std::env::consts::OS.to_owned(),
        arch: std::env::consts::ARCH.to_owned(),
    }
}

/// Opens the folder of the log files in the file manager (the About section's "Open log folder").
#[tauri::command]
pub(crate) fn open_log_folder<R: Runtime>(app: AppHandle<R>) -> Result<(), CommandError> {
    let log_dir = app
        .path()
        .app_log_dir()
        .map_err(|error| CommandError::new(ErrorCode::FolderNotOpened, error.to_string()))?;
    app.opener()
        .open_path(log_dir.display().to_string(), None::<&str>)
        .map_err(|error| {
            CommandError::new(
                ErrorCode::FolderNotOpened,
                format!("{}: {error}", log_dir.display()),
            )
        })
}
