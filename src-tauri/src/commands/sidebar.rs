//! Commands of the sidebar: list, search, open (switch), rename, delete, restore (undo) and export
//! conversations. Thin wrappers over desktop-host's [`Conversations`] service; the active conversation's
//! commands (`active_conversation`) and the run commands live beside them and use the same service.
//!
//! Switching never stops a run: a conversation that streams keeps running (and saving) in the background, and
//! its envelopes keep going to the window, tagged with its id.

use std::path::Path;

use desktop_host::conversations::{
    ConversationList, Conversations, DeletedConversation, ExportedFile,
};
use desktop_host::language::Language;
use desktop_host::store::{ConversationId, ConversationSummary, ExportFormat, SearchHit};
use tauri::State;

use crate::command_error::{CommandError, to_command_error};
use crate::commands::export::ExportedFiles;
use crate::host::AppState;

/// How many search hits the sidebar shows at most.
const SEARCH_LIMIT_DEFAULT: usize = 50;
/// The most a caller may ask for.
const SEARCH_LIMIT_MAX: usize = 200;

/// The conversations by day, newest first (the `limit` most recent when given, saying whether there are more),
/// with the active one, those streaming now and the storage status.
#[tauri::command]
pub(crate) async fn list_conversations(
    conversations: State<'_, Conversations>,
    limit: Option<usize>,
) -> Result<ConversationList, CommandError> {
    conversations
        .list_conversations(limit)
        .map_err(to_command_error)
}

/// Full-text search; each hit's snippet comes as plain/highlighted parts (never markup).
#[tauri::command]
pub(crate) async fn search_conversations(
    conversations: State<'_, Conversations>,
    query: String,
    limit: Option<usize>,
) -> Result<Vec<SearchHit>, CommandError> {
    let limit = limit
        .unwrap_or(SEARCH_LIMIT_DEFAULT)
        .clamp(1, SEARCH_LIMIT_MAX);
    conversations
        .search(&query, limit)
        .map_err(to_command_error)
}

/// Makes a conversation the active one and returns its state (as `get_state` does). A run of the previous
/// conversation goes on in the background. With `tail`, a transcript longer than that many messages comes
/// from its end ([`desktop_host::session::SessionState::from_end`]); `get_state` gives the whole.
#[tauri::command]
pub(crate) async fn open_conversation(
    conversations: State<'_, Conversations>,
    conversation_id: String,
    tail: Option<usize>,
) -> Result<AppState, CommandError> {
    let opened = conversations
        .open_conversation(&ConversationId::from(conversation_id))
        .await
        .map_err(to_command_error)?;
    Ok(AppState::of(&opened.session, &opened.id, tail))
}

/// Renames a conversation; returns it as listed.
#[tauri::command]
pub(crate) async fn rename_conversation(
    conversations: State<'_, Conversations>,
    conversation_id: String,
    title: String,
) -> Result<ConversationSummary, CommandError> {
    conversations
        .rename_conversation(&ConversationId::from(conversation_id), &title)
        .map_err(to_command_error)
}

/// Deletes a conversation softly; `undoUntil` says until when `restore_conversation` brings it back. A run of
/// it is stopped. When it was the active one, the UI asks `get_state` (which opens the most recent other one).
#[tauri::command]
pub(crate) async fn delete_conversation(
    conversations: State<'_, Conversations>,
    conversation_id: String,
) -> Result<DeletedConversation, CommandError> {
    conversations
        .delete_conversation(&ConversationId::from(conversation_id))
        .map_err(to_command_error)
}

/// Undoes a delete within the undo window.
#[tauri::command]
pub(crate) async fn restore_conversation(
    conversations: State<'_, Conversations>,
    conversation_id: String,
) -> Result<(), CommandError> {
    conversations
        .restore_conversation(&ConversationId::from(conversation_id))
        .map_err(to_command_error)
}

/// Writes the conversation to `path` when given (what the user chose in `choose_export_path`'s dialog; a file
/// there is replaced), otherwise into the user's Downloads folder (`<title>.md` or `<title>.jsonl`, never
/// replacing a file), and returns the file's name and path. A Markdown document's headings are in `language`,
/// the window's (English when it is not given).
#[tauri::command]
pub(crate) async fn export_conversation(
    conversations: State<'_, Conversations>,
    exported: State<'_, ExportedFiles>,
    conversation_id: String,
    format: ExportFormat,
    language: Option<Language>,
    path: Option<String>,
) -> Result<ExportedFile, CommandError> {
    let conversations = conversations.inner().clone();
    let id = ConversationId::from(conversation_id);
    let language = language.unwrap_or_default();
    // A long conversation is a lot of text to build and write: keep it off the async workers.
    let file = tauri::async_runtime::spawn_blocking(move || match path {
        Some(path) => conversations.export_to_path(&id, format, language, Path::new(&path)),
        None => conversations.export_to_downloads(&id, format, language),
    })
    .await
    .map_err(CommandError::work_stopped)?
    .map_err(to_command_error)?;
    exported.add(&file.path);
    Ok(file)
}
