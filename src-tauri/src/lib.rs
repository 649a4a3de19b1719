//! Pi Desktop's Tauri shell: the window, the IPC commands, logging.
//!
//! [`run`] starts the real app. [`configure`] puts the IPC surface on a builder of any
//! [`tauri::Runtime`], so tests drive exactly the commands the window gets on Tauri's mock runtime. Every command is listed in
//! the one `generate_handler!` below; each file under `commands/` is a thin wrapper, and the logic they
//! wrap lives in Tauri-free crates.
//!
//! Configuration has one home, `tauri.conf.json` at the repository root (`src-tauri/tauri.conf.json`
//! is a symlink to it for the Tauri CLI). What the window may call is granted in `capabilities/`.

mod channel_bridge;
mod command_error;
mod commands;
mod host;
#[cfg(test)]
mod ipc_surface_tests;
mod logging;
mod session_factory;

use tauri::Manager as _;

pub use command_error::{CommandError, ErrorKind};
pub use commands::app::AppInfo;
pub use host::{AppState, Host, SessionFactory};
pub use logging::{LOG_FILE_PREFIX, LoggingError};

/// Why the app could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Tauri failed to build the app or its window.
    #[error("the app failed to start: {0}")]
    Tauri(#[from] tauri::Error),
}

/// Adds the app's IPC surface to `builder`, for any runtime: the [`Host`] making sessions with `factory`, and
/// every command (the list below is the whole surface; `capabilities/default.json` grants exactly these).
///
/// [`run`] adds the window's runtime concerns (logging to the app's log folder) on top.
pub fn configure<R: tauri::Runtime>(
    builder: tauri::Builder<R>,
    factory: SessionFactory,
) -> tauri::Builder<R> {
    builder
        .manage(Host::new(factory))
        .invoke_handler(tauri::generate_handler![
            commands::app::app_info,
            commands::conversation::get_state,
            commands::conversation::new_conversation,
            commands::run::prompt,
            commands::run::continue_run,
            commands::run::abort,
            commands::run::steer,
            commands::run::follow_up,
        ])
}

/// Starts logging, opens the main window and runs until the last window closes.
pub fn run() -> Result<(), RunError> {
    configure(
        tauri::Builder::<tauri::Wry>::new(),
        session_factory::from_environment(),
    )
    .setup(|app| {
        let log_dir = app.path().app_log_dir()?;
        logging::init(&log_dir)?;
        tracing::info!(
            version = %app.package_info().version,
            log_dir = %log_dir.display(),
            "pi desktop started"
        );
        Ok(())
    })
    .run(tauri::generate_context!())?;
    Ok(())
}
