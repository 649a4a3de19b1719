//! IPC commands, one file per resource (the app, the active conversation, runs, the sidebar, settings, the
//! approval grants, the loop inspector, the connection and the models, the window's stream, the images of
//! answers, the versions and branches of messages, the files attached to a message, exports through the
//! system's dialogs, starting with the session). Each is a thin
//! wrapper; `lib.rs` registers them all.

pub(crate) mod active_conversation;
pub(crate) mod app;
pub(crate) mod approval_grants;
pub(crate) mod attachments;
pub(crate) mod autostart;
pub(crate) mod export;
pub(crate) mod images;
pub(crate) mod inspector;
pub(crate) mod mcp;
pub(crate) mod models;
pub(crate) mod queue_settings;
pub(crate) mod run;
pub(crate) mod settings;
pub(crate) mod sidebar;
pub(crate) mod stream;
pub(crate) mod versions;
