//! Commands on the messages of a conversation: regenerate an answer, edit a question (a new branch), show the
//! previous or next version, delete a message pair and undo it, continue an answer cut off by the length limit.
//! Thin wrappers over desktop-host's session (`session::branches` states the contract); messages are named by
//! their store `seq` (`SessionState.versions`).
//!
//! All of them act on conversation `conversation_id` (made the active one, as the window shows it) and are
//! refused with `run_active` while it runs. Those that start a run return it as `prompt` does; the others return
//! the conversation's new state.

use desktop_host::conversations::Conversations;
use desktop_host::session::{DesktopSession, SessionPrompt};
use desktop_host::store::{ConversationId, DeletedMessages};
use serde::Serialize;
use tauri::State;

use crate::command_error::{CommandError, ErrorCode, to_command_error};
use crate::commands::run::RunAccepted;
use crate::host::AppState;

/// A message pair deleted, with what undoes it and the conversation as it is now.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub(crate) struct MessagePairDeleted {
    pub(crate) deleted: DeletedMessages,
    pub(crate) state: AppState,
}

/// A new version of the answer `seq`, from the messages before it; returns once the run is accepted.
#[tauri::command]
pub(crate) async fn regenerate(
    conversations: State<'_, Conversations>,
    conversation_id: ConversationId,
    seq: i64,
) -> Result<RunAccepted, CommandError> {
    let session = opened(&conversations, &conversation_id).await?;
    let run = session.start_regenerate(seq).await?;
    Ok(RunAccepted::of(conversation_id, &run))
}

/// Sends `text` in place of the user message `seq`: a new branch from there; returns once the run is accepted.
#[tauri::command]
pub(crate) async fn edit_message(
    conversations: State<'_, Conversations>,
    conversation_id: ConversationId,
    seq: i64,
    text: String,
) -> Result<RunAccepted, CommandError> {
    if text.trim().is_empty() {
        return Err(CommandError::bare(ErrorCode::EmptyMessage));
    }
    let session = opened(&conversations, &conversation_id).await?;
    let run = session.start_edit(seq, SessionPrompt::from(text)).await?;
    Ok(RunAccepted::of(conversation_id, &run))
}

/// Shows the version `step` places after message `seq` (-1: the previous one, 1: the next one).
#[tauri::command]
pub(crate) async fn show_version(
    conversations: State<'_, Conversations>,
    conversation_id: ConversationId,
    seq: i64,
    step: i64,
) -> Result<AppState, CommandError> {
    let session = opened(&conversations, &conversation_id).await?;
    session.show_adjacent_version(seq, step)?;
    Ok(AppState::of(&session, &conversation_id, None))
}

/// Deletes the user message `seq` and its answer; `restore_messages` brings them back until `undoUntil`.
#[tauri::command]
pub(crate) async fn delete_message_pair(
    conversations: State<'_, Conversations>,
    conversation_id: ConversationId,
    seq: i64,
) -> Result<MessagePairDeleted, CommandError> {
    let session = opened(&conversations, &conversation_id).await?;
    let deleted = session.delete_message_pair(seq)?;
    Ok(MessagePairDeleted {
        deleted,
        state: AppState::of(&session, &conversation_id, None),
    })
}

/// Undoes `delete_message_pair`.
#[tauri::command]
pub(crate) async fn restore_messages(
    conversations: State<'_, Conversations>,
    conversation_id: ConversationId,
    seqs: Vec<i64>,
) -> Result<AppState, CommandError> {
    let session = opened(&conversations, &conversation_id).await?;
    session.restore_messages(&seqs)?;
    Ok(AppState::of(&session, &conversation_id, None))
}

/// Continues the last answer, which stopped at the output length limit; returns once the run is accepted.
#[tauri::command]
pub(crate) async fn continue_answer(
    conversations: State<'_, Conversations>,
    conversation_id: ConversationId,
) -> Result<RunAccepted, CommandError> {
    let session = opened(&conversations, &conversation_id).await?;
    let run = session.start_continue_truncated().await?;
    Ok(RunAccepted::of(conversation_id, &run))
}

async fn opened(
    conversations: &Conversations,
    conversation_id: &ConversationId,
) -> Result<DesktopSession, CommandError> {
    conversations
        .open_conversation(conversation_id)
        .await
        .map(|opened| opened.session)
        .map_err(to_command_error)
}
