//! Commands that read or replace the current conversation.

use tauri::State;

use crate::command_error::CommandError;
use crate::host::{AppState, Host};

/// The current state: streaming or not, pending tool calls, the transcript, the model.
#[tauri::command]
pub(crate) async fn get_state(host: State<'_, Host>) -> Result<AppState, CommandError> {
    Ok(host.conversation()?.state())
}

/// Starts an empty conversation; refused with `busy` while a run is active.
#[tauri::command]
pub(crate) async fn new_conversation(host: State<'_, Host>) -> Result<AppState, CommandError> {
    Ok(host.new_conversation()?.state())
}
