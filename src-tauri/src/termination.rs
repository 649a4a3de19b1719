//! A graceful exit on SIGTERM and SIGINT (session logout, `kill`, Ctrl-C in a terminal): the app exits through
//! Tauri's normal path, so `RunEvent::Exit` runs and the window state is saved, instead of the process dying
//! where it stands. SIGKILL still ends the app at once, as a crash would.

use tauri::{AppHandle, Runtime};
use tokio::signal::unix::{SignalKind, signal};

/// Listens for SIGTERM and SIGINT on Tauri's async runtime; the first one received asks the app to exit.
/// A signal that cannot be listened for is logged and keeps its default action.
pub(crate) fn exit_gracefully_on_signals<R: Runtime>(app: &AppHandle<R>) {
    for (kind, name) in [
        (SignalKind::terminate(), "SIGTERM"),
        (SignalKind::interrupt(), "SIGINT"),
    ] {
        let app = app.clone();
        tauri::async_runtime::spawn(async move {
            let mut received = match signal(kind) {
                Ok(received) => received,
                Err(error) => {
                    tracing::warn!(%error, signal = name, "cannot listen for the signal");
                    return;
                }
            };
            if received.recv().await.is_some() {
                tracing::info!(signal = name, "exiting on signal");
                app.exit(0);
            }
        });
    }
}
