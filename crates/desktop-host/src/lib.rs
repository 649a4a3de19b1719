//! The desktop host, without Tauri: desktop folders and tools, settings, secrets, conversations on disk and the
//! IPC wire format. Everything the app does besides drawing the window lives here, so it is testable with
//! `cargo test` alone and usable from a terminal (`pi-chat`).
//!
//! # Overview
//!
//! - [`session::DesktopSession`] is what src-tauri holds per conversation: it builds the `Agent` from
//!   [`settings::ResolvedSettings`], the desktop tools and a `stream_fn` over pi-ai's `Models`, and forwards every
//!   AgentEvent as a numbered [`wire::Envelope`] on a bounded channel. Its methods (`prompt`, `abort`, `steer`,
//!   `follow_up`, `continue_run`, `get_state`, `notify`) are what the Tauri commands wrap.
//! - [`settings::resolve_settings`] is the one resolution of the provider settings (settings file, `PI_*`
//!   variables, presets, a local Ollama), shared by the app and `pi-chat`; the API key source is pluggable.
//! - [`desktop_paths::DesktopPaths`] finds the user's folders; [`allowed_folder::AllowedFolder`] confines every
//!   tool path to one of them.
//! - [`desktop_tools`] holds `list_download_files` (the chapter's tool), `list_folder` and `read_document`, on
//!   top of the [`listing`] and [`document`] engines; failures go to [`diagnostics::Diagnostics`] in full and to
//!   the model as a short, safe message.
//! - [`wire`] documents the envelope JSON (protocol version, bump rule) and replays it ([`wire::WireReplay`]).
//!
//! # The flow of one prompt
//!
//! ```text
//! DesktopSession::prompt(text)
//!   -> Agent::prompt -> agent_start, turn_start, message_start/end (user)
//!   -> stream_fn -> Models::stream_simple -> provider -> message_update deltas -> message_end (assistant)
//!   -> tool_execution_start -> desktop tool (spawn_blocking, cancellable) -> tool_execution_end
//!   -> ... next turn ... -> agent_end
//!   -> state notice (isStreaming: false) -> idle notice      (prompt returns after both were forwarded)
//! ```

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
