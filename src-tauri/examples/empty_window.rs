//! An empty Tauri 2 window: one webview on an empty page, no plugins, no commands. It is the floor the app's
//! memory is measured against (`tests/e2e/examples/app_bench.rs` builds and runs both in the same run), so it is
//! built from the same tauri version and features as the app. It prints `loaded` on stdout once its page has
//! finished loading, which is when the benchmark starts its settle time.
#![allow(
    clippy::print_stdout,
    reason = "the benchmark reads the load signal from stdout"
)]

use std::io::Write;

use tauri::webview::PageLoadEvent;

fn main() -> Result<(), tauri::Error> {
    tauri::Builder::default()
        .on_page_load(|_, payload| {
            if payload.event() == PageLoadEvent::Finished {
                println!("loaded");
                // A closed pipe only means nobody is waiting for the signal.
                let _ = std::io::stdout().flush();
            }
        })
        .run(tauri::generate_context!(
            "examples/empty_window/tauri.conf.json"
        ))
}
