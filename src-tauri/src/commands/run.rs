//! Commands that start, steer and stop a run. Events travel only over the `Channel` passed to `prompt` and
//! `continue_run`; both resolve after the run settled and `idle` went out on that channel.

use desktop_host::session::{ImageContent, SessionPrompt};
use desktop_host::wire::Envelope;
use serde::Deserialize;
use tauri::State;
use tauri::ipc::Channel;

use crate::command_error::{CommandError, ErrorKind};
use crate::commands::conversations::{AppConversations, to_command_error};
use crate::host::RunKind;

/// An image attached to a prompt (base64 data and its MIME type).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ImageInput {
    pub(crate) data: String,
    pub(crate) mime_type: String,
}

/// Runs one prompt; refused with `busy` (pi's message) while a run is active, and with `invalid` (before
/// anything runs) when an image breaks desktop-host's rules (PNG/JPEG/GIF/WebP, base64, at most 10 MB each,
/// at most 8).
#[tauri::command]
pub(crate) async fn prompt(
    conversations: State<'_, AppConversations>,
    text: String,
    images: Option<Vec<ImageInput>>,
    on_event: Channel<Envelope>,
) -> Result<(), CommandError> {
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
    active
        .attachment
        .run(&active.session, RunKind::Prompt, on_event, Some(prompt))
        .await
}

/// Continues from the transcript (retry after an error or a stop); pi's `continue()` rules.
#[tauri::command]
pub(crate) async fn continue_run(
    conversations: State<'_, AppConversations>,
    on_event: Channel<Envelope>,
) -> Result<(), CommandError> {
    let active = conversations.active().await.map_err(to_command_error)?;
    active
        .attachment
        .run(&active.session, RunKind::Continue, on_event, None)
        .await
}

/// Stops the active run; a no-op when idle. The run ends `aborted` and its `prompt` resolves normally.
#[tauri::command]
pub(crate) async fn abort(conversations: State<'_, AppConversations>) -> Result<(), CommandError> {
    if let Some(active) = conversations.active_if_open() {
        active.session.abort();
    }
    Ok(())
}

/// Queues a message into the active run.
#[tauri::command]
pub(crate) async fn steer(
    conversations: State<'_, AppConversations>,
    text: String,
) -> Result<(), CommandError> {
    let active = conversations.active().await.map_err(to_command_error)?;
    active.session.steer(text);
    Ok(())
}

/// Queues a message for when the active run would end.
#[tauri::command]
pub(crate) async fn follow_up(
    conversations: State<'_, AppConversations>,
    text: String,
) -> Result<(), CommandError> {
    let active = conversations.active().await.map_err(to_command_error)?;
    active.session.follow_up(text);
    Ok(())
}
