//! Commands that start, steer and stop a run. `prompt` and `continue_run` return as soon as the run is accepted
//! (with its id) or refused; its envelopes reach the window on the Channel it subscribed with (see `stream`).
//! `steer` and `follow_up` queue a message (the window hears `message_queued` on that stream); `cancel_queued`
//! and `send_queued` act on one queued message by id.

use desktop_host::approval::{ApprovalDecision, ApprovalError};
use desktop_host::conversations::Conversations;
use desktop_host::session::{
    DesktopSession, ImageContent, QueueError, QueuedMessage, QueuedMessageId, QueuedSend,
    RunHandle, SessionPrompt,
};
use desktop_host::store::ConversationId;
use serde::{Deserialize, Serialize};
use tauri::State;

use crate::command_error::{CommandError, ErrorCode, to_command_error};

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
    pub(crate) fn of(conversation_id: ConversationId, run: &RunHandle) -> RunAccepted {
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
        .map_err(|error| CommandError::new(ErrorCode::InvalidPrompt, error.to_string()))?;
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

/// Queues a steering message in the active conversation: delivered at its run's next steering poll (after the
/// current tool batch, or when the answer ends).
#[tauri::command]
pub(crate) async fn steer(
    conversations: State<'_, Conversations>,
    text: String,
) -> Result<QueuedMessage, CommandError> {
    let text = queued_text(text)?;
    let active = conversations.active().await.map_err(to_command_error)?;
    Ok(active.session.steer(text).await)
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
            CommandError::new(
                ErrorCode::ApprovalNotPending,
                ApprovalError::NotPending.to_string(),
            )
        })?;
    session
        .resolve_approval(request_id, decision)
        .map_err(|error| CommandError::new(ErrorCode::ApprovalNotPending, error.to_string()))
}

/// Queues a follow-up in the active conversation: delivered when its run would otherwise stop.
#[tauri::command]
pub(crate) async fn follow_up(
    conversations: State<'_, Conversations>,
    text: String,
) -> Result<QueuedMessage, CommandError> {
    let text = queued_text(text)?;
    let active = conversations.active().await.map_err(to_command_error)?;
    Ok(active.session.follow_up(text).await)
}

/// What `send_queued` did: started a run with the message (the session was idle), or queued it as steering for
/// the run in progress.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
#[serde(tag = "type", rename_all = "snake_case")]
#[ts(export)]
pub(crate) enum QueuedSendOutcome {
    Started(RunAccepted),
    Steering(QueuedMessage),
}

/// Cancels (or discards) a queued message of conversation `conversation_id`; refused with `invalid` once the loop
/// has taken it for the turn that is starting, or when it is gone.
#[tauri::command]
pub(crate) async fn cancel_queued(
    conversations: State<'_, Conversations>,
    conversation_id: ConversationId,
    id: QueuedMessageId,
) -> Result<(), CommandError> {
    let session = queue_session(&conversations, &conversation_id, id)?;
    session.cancel_queued(id).await.map_err(queue_error)
}

/// Sends a queued message of conversation `conversation_id` now: as a prompt when it is idle, else as steering.
#[tauri::command]
pub(crate) async fn send_queued(
    conversations: State<'_, Conversations>,
    conversation_id: ConversationId,
    id: QueuedMessageId,
) -> Result<QueuedSendOutcome, CommandError> {
    let session = queue_session(&conversations, &conversation_id, id)?;
    Ok(match session.send_queued(id).await.map_err(queue_error)? {
        QueuedSend::Started(run) => {
            QueuedSendOutcome::Started(RunAccepted::of(conversation_id, &run))
        }
        QueuedSend::Steering(message) => QueuedSendOutcome::Steering(message),
    })
}

/// A queued message's text; a blank one is refused (the composer never sends one).
fn queued_text(text: String) -> Result<String, CommandError> {
    if text.trim().is_empty() {
        return Err(CommandError::bare(ErrorCode::EmptyMessage));
    }
    Ok(text)
}

/// The session whose queue holds `id`: a closed conversation's queue is gone with its session.
fn queue_session(
    conversations: &Conversations,
    conversation_id: &ConversationId,
    id: QueuedMessageId,
) -> Result<DesktopSession, CommandError> {
    conversations
        .open_session(conversation_id)
        .ok_or_else(|| queue_error(QueueError::NotQueued(id)))
}

fn queue_error(error: QueueError) -> CommandError {
    CommandError::bare(match error {
        QueueError::NotQueued(_) => ErrorCode::NoLongerQueued,
        QueueError::AlreadyDelivered(_) => ErrorCode::AlreadyDelivered,
    })
}
