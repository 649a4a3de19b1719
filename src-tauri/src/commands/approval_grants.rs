//! The settings' approval section: the "allow in this conversation" grants of every conversation, revoking one
//! (the database and the conversation's open session both forget it, so its next call asks again), and the
//! setting that makes the built-in tools ask.

use desktop_host::conversations::{Conversations, ConversationsError};
use desktop_host::settings::{ApprovalSettings, SettingsService};
use desktop_host::store::{ConversationGrant, ConversationId};
use tauri::State;

use crate::command_error::{CommandError, to_command_error};
use crate::commands::settings::{apply_to_open_conversations, off_the_workers};

/// Every live conversation's grants, newest first, each with its conversation's title.
#[tauri::command]
pub(crate) async fn conversation_grants(
    conversations: State<'_, Conversations>,
) -> Result<Vec<ConversationGrant>, CommandError> {
    all_grants(&conversations)
}

/// Revokes the grant of `tool` of `server` (empty for the app's own tools) in conversation `conversation_id`
/// and returns the grants as `conversation_grants` does. Revoking a grant that is already gone does nothing.
#[tauri::command]
pub(crate) async fn revoke_conversation_grant(
    conversations: State<'_, Conversations>,
    conversation_id: ConversationId,
    server: String,
    tool: String,
) -> Result<Vec<ConversationGrant>, CommandError> {
    conversations
        .store()
        .revoke_conversation_grant(&conversation_id, &server, &tool)
        .map_err(|error| to_command_error(ConversationsError::from(error)))?;
    if let Some(session) = conversations.open_session(&conversation_id) {
        session.forget_conversation_grant(&server, &tool);
    }
    all_grants(&conversations)
}

/// Whether the built-in tools ask before they run.
#[tauri::command]
pub(crate) async fn approval_settings(
    service: State<'_, SettingsService>,
) -> Result<ApprovalSettings, CommandError> {
    Ok(service.approval_settings()?)
}

/// Saves the approval settings and applies them to the open conversations: calls prepared from now on follow
/// them.
#[tauri::command]
pub(crate) async fn save_approval_settings(
    service: State<'_, SettingsService>,
    conversations: State<'_, Conversations>,
    settings: ApprovalSettings,
) -> Result<ApprovalSettings, CommandError> {
    let service = service.inner().clone();
    let conversations = conversations.inner().clone();
    // Resolving the settings may ask the keychain, which can take a moment.
    off_the_workers(move || {
        let saved = service.save_approval_settings(settings)?;
        apply_to_open_conversations(&service, &conversations)?;
        Ok::<_, CommandError>(saved)
    })
    .await
}

fn all_grants(conversations: &Conversations) -> Result<Vec<ConversationGrant>, CommandError> {
    conversations
        .store()
        .all_conversation_grants()
        .map_err(|error| to_command_error(ConversationsError::from(error)))
}
