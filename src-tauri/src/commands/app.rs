//! Commands about the app itself.

use serde::Serialize;
use tauri::{AppHandle, Runtime};

/// What the UI shows about the running app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    /// The product name from `tauri.conf.json`.
    pub name: String,
    /// The app's version (semver).
    pub version: String,
}

/// Returns the app's name and version. Never fails.
#[tauri::command]
pub(crate) fn app_info<R: Runtime>(app: AppHandle<R>) -> AppInfo {
    let package_info = app.package_info();
    AppInfo {
        name: package_info.name.clone(),
        version: package_info.version.to_string(),
    }
}
