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
//! - [`conversations::Conversations`] is what the app holds: the conversation store plus one session per open
//!   conversation (saved as it streams, reloaded after a restart), list, search, rename, delete/undo, export.
//! - [`wire`] documents the envelope JSON (protocol version, bump rule) and replays it ([`wire::WireReplay`]).
//! - [`connection`] sets every provider request up from the connection settings (timeouts, retries, proxy);
//!   [`model_list`] fetches, caches and describes the provider's models; [`connection_test`] is "Test
//!   connection".
//! - [`run_alerts`] reads off the envelope stream when a run's end or an approval question deserves a system
//!   notification, and writes its texts.
//! - [`remote_image`] fetches a web image of an answer when the user asks to see it (checked type and size).
//! - [`attachment`] reads a file the user attached (the `read_document` reader, from its bytes) and defines the
//!   text block that carries it inside the user message.
//!
//! # Example
//!
//! A session over the scripted model (no network), the way src-tauri drives one: start it, read its envelopes
//! on another task (the Channel bridge), prompt, and find the idle notice at the end.
//!
//! ```
//! use std::collections::HashMap;
//!
//! use desktop_host::desktop_paths::{DesktopEnv, DesktopPaths};
//! use desktop_host::session::{DesktopSession, SessionOptions};
//! use desktop_host::settings::{NoKeySource, ResolveInputs, SettingsFile, TcpProbe, resolve_settings};
//!
//! # #[tokio::main]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let home = tempfile::tempdir()?;
//! std::fs::create_dir_all(home.path().join("Downloads"))?;
//! std::fs::write(home.path().join("Downloads/report.pdf"), b"%PDF-1.4")?;
//! let paths = DesktopPaths::from_env(&DesktopEnv { home: home.path().to_path_buf(), vars: HashMap::new() });
//!
//! let env = HashMap::from([("PI_API".to_owned(), "scripted".to_owned())]);
//! let settings = resolve_settings(&ResolveInputs {
//!     file: &SettingsFile::default(),
//!     env: &env,
//!     key_env_override: None,
//!     key_source: &NoKeySource,
//!     probe: &TcpProbe::default(),
//!     settings_path: None,
//! })?;
//!
//! let (session, mut envelopes) =
//!     DesktopSession::start_with_channel(SessionOptions::new(settings, paths))?;
//! let bridge = tokio::spawn(async move {
//!     let mut lines = Vec::new();
//!     while let Some(envelope) = envelopes.recv().await {
//!         lines.push(serde_json::to_string(&envelope).expect("envelopes serialise"));
//!     }
//!     lines
//! });
//! session.prompt("Which PDF files did I download?").await?;
//! let state = session.get_state();
//! assert!(!state.is_streaming);
//! assert_eq!(state.messages.len(), 4); // prompt, tool call, tool result, answer
//! drop(session);
//! let lines = bridge.await?;
//! assert!(lines.last().is_some_and(|line| line.contains(r#""type":"idle""#)));
//! # Ok(())
//! # }
//! ```
//!
//! # The flow of one prompt
//!
//! ```text
//! DesktopSession::start_prompt(text) -> RunHandle          (returns once the run is accepted)
//!   -> Agent::prompt (on the run's task) -> agent_start, turn_start, message_start/end (user)
//!   -> stream_fn -> Models::stream_simple -> provider -> message_update deltas -> message_end (assistant)
//!   -> tool_execution_start -> desktop tool (spawn_blocking, cancellable) -> tool_execution_end
//!   -> ... next turn ... -> agent_end
//!   -> state notice (isStreaming: false) -> idle notice      (RunHandle::finished resolves after both)
//! ```

pub mod allowed_folder;
pub mod approval;
pub mod attachment;
pub mod connection;
pub mod connection_test;
pub mod conversations;
pub mod desktop_paths;
pub mod desktop_tools;
pub mod diagnostics;
pub mod document;
pub mod file_kind;
pub mod inspector;
pub mod language;
pub mod listing;
pub mod mcp;
pub mod model_list;
pub mod model_registry;
pub mod remote_image;
pub mod run_alerts;
pub mod scripted_model;
pub mod secrets;
pub mod session;
pub mod settings;
pub mod store;
pub mod wire;
