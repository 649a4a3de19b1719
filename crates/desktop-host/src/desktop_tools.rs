//! The desktop tools the Agent can call: `list_download_files` (the chapter's tool), `list_folder` and
//! `read_document`.
//!
//! Each tool is a plain async function over a [`DesktopToolContext`] (tested without an Agent) plus a thin
//! `AgentTool` wrapper. Failures follow the chapter: the full error goes to the diagnostics component, the model
//! gets a short [`ToolFailure`] message in the user's language with no absolute path in it. Blocking filesystem
//! work runs under `spawn_blocking` and stops when the run's cancellation token fires.

mod agent_tools;
mod context;
mod failure;
mod list_files;
mod read_document;

pub use agent_tools::{
    DesktopTool, DesktopToolKind, LIST_DOWNLOAD_FILES, LIST_FOLDER, READ_DOCUMENT,
    desktop_agent_tools,
};
pub use context::{DesktopToolContext, ToolOutput};
pub use failure::{FailureKind, ToolFailure, folder_name};
pub use list_files::{
    ListFilesArgs, MAX_CONTENT_CHARS, list_files_parameters, list_folder_files, parse_time,
};
pub use read_document::{ReadDocumentArgs, read_document_parameters, read_folder_document};
