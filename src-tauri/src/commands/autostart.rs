//! Starting with the session: `autostart_enabled` and `set_autostart` read and change whether Pi Desktop starts
//! when the user logs in (`tauri-plugin-autostart`: on Linux a desktop entry in `~/.config/autostart`). Off
//! until the user turns it on; the entry itself is the setting, so nothing is kept in the settings file.

use tauri::{AppHandle, Runtime};
use tauri_plugin_autostart::ManagerExt as _;

use crate::command_error::{CommandError, ErrorCode};

/// Whether the app starts when the user logs in.
#[tauri::command]
pub(crate) fn autostart_enabled<R: Runtime>(app: AppHandle<R>) -> Result<bool, CommandError> {
    app.autolaunch()
        .is_enabled()
        .map_err(|error| CommandError::new(ErrorCode::SettingsNotSaved, error.to_string()))
}

/// Makes the app start when the user logs in (`enabled`) or not; returns whether it now does.
#[tauri::command]
pub(crate) fn set_autostart<R: Runtime>(
    app: AppHandle<R>,
    enabled: bool,
) -> Result<bool, CommandError> {
    let autolaunch = app.autolaunch();
    let changed = if enabled {
        autolaunch.enable()
    } else {
        autolaunch.disable()
    };
    changed
        .and_then(|()| autolaunch.is_enabled())
        .map_err(|error| CommandError::new(ErrorCode::SettingsNotSaved, error.to_string()))
}
