//! Commands that read the active conversation or start a new one.

use desktop_host::conversations::Conversations;
use tauri::State;

use crate::command_error::{CommandError, to_command_error};
use crate::host::AppState;

/// The active conversation's state: streaming or not, pending tool calls, the transcript, the model, its id.
/// At start-up this opens the most recent stored conversation, or a new one. With `tail`, a transcript longer
/// than that many messages comes from its end, as `open_conversation` gives it.
#[tauri::command]
pub(crate) async fn get_state(
    conversations: State<'_, Conversations>,
    tail: Option<usize>,
) -> Result<AppState, CommandError> {
    let active = conversations.active().await.map_err(to_command_error)?;
    Ok(AppState::of(&active.session, &active.id, tail))
}

/// Makes an empty conversation active. A conversation that streams goes on in the background; an empty idle
/// active conversation is reused.
#[tauri::command]
pub(crate) async fn new_conversation(
    conversations: State<'_, Conversations>,
) -> Result<AppState, CommandError> {
    let opened = conversations
        .new_conversation()
        .await
        .map_err(to_command_error)?;
    Ok(AppState::of(&opened.session, &opened.id, None))
}
