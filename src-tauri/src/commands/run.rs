//! Commands that start, steer and stop a run. Events travel only over the `Channel` passed to `prompt` and
//! `continue_run`; both resolve after the run settled and `idle` went out on that channel.

use desktop_host::wire::Envelope;
use serde::Deserialize;
use tauri::State;
use tauri::ipc::Channel;

use crate::command_error::{CommandError, ErrorKind};
use crate::host::{Host, RunKind};

/// An image attached to a prompt (base64 data and its MIME type).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ImageInput {
    #[serde(rename = "data")]
    _data: String,
    #[serde(rename = "mimeType")]
    _mime_type: String,
}

/// Runs one prompt; refused with `busy` (pi's message) while a run is active.
#[tauri::command]
pub(crate) async fn prompt(
    host: State<'_, Host>,
    text: String,
    images: Option<Vec<ImageInput>>,
    on_event: Channel<Envelope>,
) -> Result<(), CommandError> {
    if images.is_some_and(|images| !images.is_empty()) {
        return Err(CommandError::new(
            ErrorKind::Invalid,
            "Images are not supported yet; send the text alone.",
        ));
    }
    let conversation = host.conversation()?;
    conversation
        .run(RunKind::Prompt, on_event, Some(text))
        .await
}

/// Continues from the transcript (retry after an error or a stop); pi's `continue()` rules.
#[tauri::command]
pub(crate) async fn continue_run(
    host: State<'_, Host>,
    on_event: Channel<Envelope>,
) -> Result<(), CommandError> {
    let conversation = host.conversation()?;
    conversation.run(RunKind::Continue, on_event, None).await
}

/// Stops the active run; a no-op when idle. The run ends `aborted` and its `prompt` resolves normally.
#[tauri::command]
pub(crate) async fn abort(host: State<'_, Host>) -> Result<(), CommandError> {
    host.conversation()?.session().abort();
    Ok(())
}

/// Queues a message into the active run.
#[tauri::command]
pub(crate) async fn steer(host: State<'_, Host>, text: String) -> Result<(), CommandError> {
    host.conversation()?.session().steer(text);
    Ok(())
}

/// Queues a message for when the active run would end.
#[tauri::command]
pub(crate) async fn follow_up(host: State<'_, Host>, text: String) -> Result<(), CommandError> {
    host.conversation()?.session().follow_up(text);
    Ok(())
}
