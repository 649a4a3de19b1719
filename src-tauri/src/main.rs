//! The `pi-desktop` binary: starts the app and reports a failed start on stderr.

// Release builds on Windows get no console window; a no-op on Linux.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

#[allow(
    clippy::print_stdout,
    reason = "`--version` answers on stdout, as command-line tools do"
)]
fn main() -> ExitCode {
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == "--version")
    {
        println!("Pi Desktop {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    #[cfg(unix)]
    pi_desktop::safe_rendering::apply_workarounds();
    match pi_desktop::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // Logging may not be up when the start fails, so the reason goes straight to stderr.
            eprintln!("pi-desktop: {error}");
            ExitCode::FAILURE
        }
    }
}
