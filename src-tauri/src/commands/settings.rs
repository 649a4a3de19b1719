//! The settings screen's commands: read and save the provider settings, store or delete the API key. Results
//! never hold a key. Saving applies the settings to the open conversations; the next run uses them.

use desktop_host::conversations::Conversations;
use desktop_host::settings::{SettingsInput, SettingsService, SettingsView};
use tauri::{AppHandle, Runtime, State};

use crate::command_error::{CommandError, to_command_error};

/// The stored settings, the presets and whether a key is stored.
#[tauri::command]
pub(crate) async fn get_settings(
    service: State<'_, SettingsService>,
) -> Result<SettingsView, CommandError> {
    let service = service.inner().clone();
    off_the_workers(move || service.view()).await
}

/// Saves the settings; open conversations take them for their next run when they resolve, and a quick-ask
/// shortcut other than the registered one is registered in its place.
#[tauri::command]
pub(crate) async fn save_settings<R: Runtime>(
    app: AppHandle<R>,
    service: State<'_, SettingsService>,
    conversations: State<'_, Conversations>,
    settings: SettingsInput,
) -> Result<SettingsView, CommandError> {
    let service = service.inner().clone();
    let conversations = conversations.inner().clone();
    let view = off_the_workers(move || -> Result<SettingsView, CommandError> {
        let view = service.save(&settings)?;
        apply_to_open_conversations(&service, &conversations)?;
        Ok(view)
    })
    .await?;
    crate::quick_ask::apply_shortcut(&app, Some(&view.settings.quick_ask_shortcut));
    Ok(view)
}

/// Stores the key for the provider of `preset`, the one the form shows (blank: the saved preset's), in the
/// keychain; write-only.
#[tauri::command]
pub(crate) async fn set_api_key(
    service: State<'_, SettingsService>,
    conversations: State<'_, Conversations>,
    preset: Option<String>,
    key: String,
) -> Result<SettingsView, CommandError> {
    let service = service.inner().clone();
    let conversations = conversations.inner().clone();
    off_the_workers(move || -> Result<SettingsView, CommandError> {
        let view = service.set_api_key(preset.as_deref().unwrap_or_default(), &key)?;
        apply_to_open_conversations(&service, &conversations)?;
        Ok(view)
    })
    .await
}

/// Deletes the stored key of `preset`'s provider (blank: the saved preset's).
#[tauri::command]
pub(crate) async fn delete_api_key(
    service: State<'_, SettingsService>,
    preset: Option<String>,
) -> Result<SettingsView, CommandError> {
    let service = service.inner().clone();
    off_the_workers(move || service.delete_api_key(preset.as_deref().unwrap_or_default())).await
}

/// The user confirmed keeping keys in a private file (no keychain answers); creates it and returns the view.
#[tauri::command]
pub(crate) async fn accept_key_file_fallback(
    service: State<'_, SettingsService>,
) -> Result<SettingsView, CommandError> {
    let service = service.inner().clone();
    off_the_workers(move || service.accept_key_file_fallback()).await
}

/// Resolves the saved settings and hands them to the open sessions. Settings that do not resolve yet (for
/// example a key still to be set) are not an error of the save: the next session start reports them.
pub(crate) fn apply_to_open_conversations(
    settings: &SettingsService,
    conversations: &Conversations,
) -> Result<(), CommandError> {
    let env = std::env::vars().collect();
    match settings.resolve(&env, None) {
        Ok(resolved) => conversations
            .apply_settings(&resolved)
            .map_err(to_command_error),
        Err(error) => {
            tracing::info!(%error, "saved settings do not resolve yet; not applied to open sessions");
            Ok(())
        }
    }
}

/// Runs file and keychain work on the blocking pool.
pub(crate) async fn off_the_workers<T: Send + 'static, E: Into<CommandError> + Send + 'static>(
    work: impl FnOnce() -> Result<T, E> + Send + 'static,
) -> Result<T, CommandError> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(CommandError::work_stopped)?
        .map_err(Into::into)
}
