//! The `pi-desktop` binary: starts the app and reports a failed start on stderr.

// Release builds on Windows get no console window; a no-op on Linux.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::process::ExitCode;

fn main() -> ExitCode {
    match pi_desktop::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            // Logging may not be up when the start fails, so the reason goes straight to stderr.
            eprintln!("pi-desktop: {error}");
            ExitCode::FAILURE
        }
    }
}
