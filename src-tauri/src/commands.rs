//! IPC commands, one file per resource. Each is a thin wrapper; `lib.rs` registers them all.

pub(crate) mod app;
pub(crate) mod conversation;
pub(crate) mod conversations;
pub(crate) mod run;
pub(crate) mod settings;
pub(crate) mod stream;
