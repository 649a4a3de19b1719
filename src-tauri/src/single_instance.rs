//! One app per user: a second `pi-desktop` launch hands over to the running one, which brings its window to the
//! front, and the second process exits (`tauri-plugin-single-instance`; on Linux it owns the D-Bus name
//! `<identifier>.SingleInstance` on the session bus, which the bus frees when the owning process dies, even
//! by SIGKILL).
//!
//! Without a session bus (a bare CI shell, `DBUS_SESSION_BUS_ADDRESS` unset or dead) the plugin logs a warning
//! and the app starts normally, without the single-instance guarantee; it never fails the start. The plugin's
//! own start-up runs before the app's `setup`, so logging is started by [`crate::logging::plugin`], registered
//! before this one, for that warning to reach the log file.

use tauri::plugin::TauriPlugin;
use tauri::{AppHandle, Manager as _, Runtime};

/// The plugin; register it before every other plugin except logging, so a second instance stops early.
pub(crate) fn plugin<R: Runtime>() -> TauriPlugin<R> {
    tauri_plugin_single_instance::init(|app, _args, _cwd| {
        tracing::info!("another launch of the app: focusing the running window");
        focus_main_window(app);
    })
}

/// Un-minimizes, shows and focuses the main window. Each step is tried even when an earlier one failed.
pub(crate) fn focus_main_window<R: Runtime>(app: &AppHandle<R>) {
    let Some(window) = app.get_webview_window(crate::MAIN_WINDOW) else {
        tracing::warn!("the main window is gone; nothing to bring to the front");
        return;
    };
    for (step, result) in [
        ("unminimize", window.unminimize()),
        ("show", window.show()),
        ("focus", window.set_focus()),
    ] {
        if let Err(error) = result {
            tracing::warn!(%error, step, "cannot bring the main window to the front");
        }
    }
}
