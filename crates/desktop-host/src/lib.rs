//! The desktop host, without Tauri: desktop folders and tools, settings, secrets, conversations on disk and the
//! IPC wire format. Everything the app does besides drawing the window lives here, so it is testable with
//! `cargo test` alone and usable from a terminal (`pi-chat`).

pub mod allowed_folder;
pub mod desktop_paths;
pub mod desktop_tools;
pub mod diagnostics;
pub mod document;
pub mod file_kind;
pub mod language;
pub mod listing;
pub mod model_registry;
pub mod scripted_model;
pub mod secrets;
pub mod session;
pub mod settings;
pub mod store;
pub mod wire;
