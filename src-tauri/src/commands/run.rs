//! Commands that start, steer and stop a run. `prompt` and `continue_run` return as soon as the run is accepted
//! (with its id) or refused; its envelopes reach the window on the Channel it subscribed with (see `stream`).

use desktop_host::approval::{ApprovalDecision, ApprovalError};
use desktop_host::conversations::Conversations;
use desktop_host::session::{ImageContent, RunHandle, SessionPrompt};
use desktop_host::store::ConversationId;
use serde::{Deserialize, Serialize};
use tauri::State;

use crate::command_error::{CommandError, ErrorKind, to_command_error};

/// An image attached to a prompt (base64 data and its MIME type).
#[derive(Debug, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub(crate) struct ImageInput {
    pub(crate) data: String,
    pub(crate) mime_type: String,
}

/// A run the host accepted: every envelope of it carries this conversation id and run id.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub(crate) struct RunAccepted {
    pub(crate) conversation_id: ConversationId,
    pub(crate) run_id: u64,
}

impl RunAccepted {
    fn of(conversation_id: ConversationId, run: &RunHandle) -> RunAccepted {
        RunAccepted {
            conversation_id,
            run_id: run.run_id().0,
        }
    }
}

/// Starts one prompt in the active conversation and returns once it is accepted; refused with `busy` (pi's
/// message) while a run is active, and with `invalid` (before anything runs) when an image breaks
/// desktop-host's rules (PNG/JPEG/GIF/WebP, base64, at most 10 MB each, at most 8).
#[tauri::command]
pub(crate) async fn prompt(
    conversations: State<'_, Conversations>,
    text: String,
    images: Option<Vec<ImageInput>>,
) -> Result<RunAccepted, CommandError> {
    let images = images
        .unwrap_or_default()
        .into_iter()
        .map(|image| ImageContent {
            data: image.data,
            mime_type: image.mime_type,
        })
        .collect();
    let prompt = SessionPrompt::with_images(text, images)
        .map_err(|error| CommandError::new(ErrorKind::Invalid, error.to_string()))?;
    let active = conversations.active().await.map_err(to_command_error)?;
    let run = active.session.start_prompt(prompt).await?;
    Ok(RunAccepted::of(active.id, &run))
}

/// Continues the active conversation from its transcript (retry after an error or a stop) and returns once
/// accepted; pi's `continue()` rules.
#[tauri::command]
pub(crate) async fn continue_run(
    conversations: State<'_, Conversations>,
) -> Result<RunAccepted, CommandError> {
    let active = conversations.active().await.map_err(to_command_error)?;
    let run = active.session.start_continue().await?;
    Ok(RunAccepted::of(active.id, &run))
}

/// Stops the active conversation's run; a no-op when idle. The run ends `aborted`, then `idle`.
#[tauri::command]
pub(crate) async fn abort(conversations: State<'_, Conversations>) -> Result<(), CommandError> {
    if let Some(active) = conversations.active_if_open() {
        active.session.abort();
    }
    Ok(())
}

/// Queues a message into the active run.
#[tauri::command]
pub(crate) async fn steer(
    conversations: State<'_, Conversations>,
    text: String,
) -> Result<(), CommandError> {
    let active = conversations.active().await.map_err(to_command_error)?;
    active.session.steer(text);
    Ok(())
}

/// The user's answer to a tool call's approval question (`approval_requested`) in conversation
/// `conversation_id`; refused with `invalid` when the question was already answered or withdrawn by Stop.
#[tauri::command]
pub(crate) async fn resolve_approval(
    conversations: State<'_, Conversations>,
    conversation_id: ConversationId,
    request_id: u64,
    decision: ApprovalDecision,
) -> Result<(), CommandError> {
    let session = conversations
        .open_session(&conversation_id)
        .ok_or_else(|| {
            CommandError::new(ErrorKind::Invalid, ApprovalError::NotPending.to_string())
        })?;
    session
        .resolve_approval(request_id, decision)
        .map_err(|error| CommandError::new(ErrorKind::Invalid, error.to_string()))
}

/// Queues a message for when the active run would end.
#[tauri::command]
pub(crate) async fn follow_up(
    conversations: State<'_, Conversations>,
    text: String,
) -> Result<(), CommandError> {
    let active = conversations.active().await.map_err(to_command_error)?;
    active.session.follow_up(text);
    Ok(())
}
