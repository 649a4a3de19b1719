//! The settings' queue section: how many steering messages, and how many follow-ups, one poll of the loop
//! delivers. Saving applies the modes to the open conversations at once (their next poll follows them).

use desktop_host::conversations::Conversations;
use desktop_host::settings::{QueueSettings, SettingsService};
use tauri::State;

use crate::command_error::CommandError;
use crate::commands::settings::{apply_to_open_conversations, off_the_workers};

/// The stored queue modes.
#[tauri::command]
pub(crate) async fn queue_settings(
    service: State<'_, SettingsService>,
) -> Result<QueueSettings, CommandError> {
    Ok(service.queue_settings()?)
}

/// Saves the queue modes and applies them to the open conversations.
#[tauri::command]
pub(crate) async fn save_queue_settings(
    service: State<'_, SettingsService>,
    conversations: State<'_, Conversations>,
    settings: QueueSettings,
) -> Result<QueueSettings, CommandError> {
    let service = service.inner().clone();
    let conversations = conversations.inner().clone();
    // Resolving the settings may ask the keychain, which can take a moment.
    off_the_workers(move || {
        let saved = service.save_queue_settings(settings)?;
        apply_to_open_conversations(&service, &conversations)?;
        Ok::<_, CommandError>(saved)
    })
    .await
}
