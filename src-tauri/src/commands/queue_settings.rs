//! The settings' queue section: how many steering messages, and how many follow-ups, one poll of the loop
//! delivers. Saving applies the modes to the open conversations at once (their next poll follows them).

use desktop_host::conversations::Conversations;
use desktop_host::settings::{QueueSettings, SettingsService};
use tauri::State;

use crate::command_error::{CommandError, ErrorKind, to_command_error};

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
    tauri::async_runtime::spawn_blocking(move || -> Result<QueueSettings, CommandError> {
        let saved = service.save_queue_settings(settings)?;
        let env = std::env::vars().collect();
        match service.resolve(&env, None) {
            Ok(resolved) => conversations
                .apply_settings(&resolved)
                .map_err(to_command_error)?,
            Err(error) => {
                tracing::info!(%error, "saved settings do not resolve yet; not applied to open sessions");
            }
        }
        Ok(saved)
    })
    .await
    .map_err(|error| {
        CommandError::new(
            ErrorKind::Internal,
            format!("Saving the queue settings stopped unexpectedly ({error}). Try again."),
        )
    })?
}
