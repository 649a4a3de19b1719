//! The desktop host, without Tauri: desktop folders and tools, settings, secrets, conversations on disk and the
//! IPC wire format. Everything the app does besides drawing the window lives here, so it is testable with
//! `cargo test` alone and usable from a terminal (`pi-chat`).

pub mod secrets;
pub mod store;
