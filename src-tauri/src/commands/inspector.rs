//! Commands of the loop inspector: a conversation's runs (stored and live), a run's event view, its log for
//! replay, and its export into Downloads. Thin wrappers over desktop-host's [`Conversations`]; reading a stored
//! log is a database read and some JSON, kept off the async workers.

use desktop_host::conversations::{ConversationInspection, Conversations, ExportedFile, RunReplay};
use desktop_host::inspector::EventRow;
use desktop_host::store::ConversationId;
use tauri::State;

use crate::command_error::{CommandError, ErrorCode, to_command_error};

/// Runs `work` over the conversations service on a blocking thread.
async fn blocking<T: Send + 'static>(
    conversations: &Conversations,
    work: impl FnOnce(&Conversations) -> Result<T, CommandError> + Send + 'static,
) -> Result<T, CommandError> {
    let conversations = conversations.clone();
    tauri::async_runtime::spawn_blocking(move || work(&conversations))
        .await
        .map_err(CommandError::work_stopped)?
}

fn no_such_run() -> CommandError {
    CommandError::bare(ErrorCode::RunLogGone)
}

/// Every run of the conversation the inspector can show: stored ones, then the one in progress.
#[tauri::command]
pub(crate) async fn inspect_conversation(
    conversations: State<'_, Conversations>,
    conversation_id: String,
) -> Result<ConversationInspection, CommandError> {
    let id = ConversationId::from(conversation_id);
    blocking(&conversations, move |conversations| {
        conversations.inspect(&id).map_err(to_command_error)
    })
    .await
}

/// The event view of one run (`logId` absent: the run in progress).
#[tauri::command]
pub(crate) async fn run_events(
    conversations: State<'_, Conversations>,
    conversation_id: String,
    log_id: Option<i64>,
) -> Result<Vec<EventRow>, CommandError> {
    let id = ConversationId::from(conversation_id);
    blocking(&conversations, move |conversations| {
        conversations
            .run_events(&id, log_id)
            .map_err(to_command_error)?
            .ok_or_else(no_such_run)
    })
    .await
}

/// One stored run to replay: the conversation before it and its log (`{"at": ms, "envelope": …}` each).
#[tauri::command]
pub(crate) async fn run_replay(
    conversations: State<'_, Conversations>,
    conversation_id: String,
    log_id: i64,
) -> Result<RunReplay, CommandError> {
    let id = ConversationId::from(conversation_id);
    blocking(&conversations, move |conversations| {
        conversations
            .run_replay(&id, log_id)
            .map_err(to_command_error)?
            .ok_or_else(no_such_run)
    })
    .await
}

/// Writes one stored run's log into Downloads as JSON lines.
#[tauri::command]
pub(crate) async fn export_run_log(
    conversations: State<'_, Conversations>,
    conversation_id: String,
    log_id: i64,
) -> Result<ExportedFile, CommandError> {
    let id = ConversationId::from(conversation_id);
    blocking(&conversations, move |conversations| {
        conversations
            .export_run_log(&id, log_id)
            .map_err(to_command_error)?
            .ok_or_else(no_such_run)
    })
    .await
}
