//! The connection and the models, for the setup card, the settings screen and the model picker: the connection
//! settings (timeouts, retries, proxy), the provider's model list (cached, with a refresh), one model's figures,
//! and "Test connection". Thin wrappers over desktop-host's `model_list`, `connection_test` and
//! `SettingsService`; results never hold a key.

use desktop_host::connection_test::{ConnectionReport, ConnectionTestInput, test_form};
use desktop_host::conversations::Conversations;
use desktop_host::model_list::{self, ModelEntry, ModelListView, ModelLists};
use desktop_host::settings::{ConnectionSettings, SettingsService};
use tauri::State;

use crate::command_error::{CommandError, ErrorKind, to_command_error};

/// The stored connection settings (the stated defaults when nothing is stored).
#[tauri::command]
pub(crate) async fn connection_settings(
    service: State<'_, SettingsService>,
) -> Result<ConnectionSettings, CommandError> {
    let service = service.inner().clone();
    blocking(move || Ok(service.connection_settings()?)).await
}

/// Checks and saves the connection settings and applies them to the open conversations (their next request
/// takes them).
#[tauri::command]
pub(crate) async fn save_connection_settings(
    service: State<'_, SettingsService>,
    conversations: State<'_, Conversations>,
    settings: ConnectionSettings,
) -> Result<ConnectionSettings, CommandError> {
    let service = service.inner().clone();
    let conversations = conversations.inner().clone();
    blocking(move || {
        let saved = service.save_connection_settings(&settings)?;
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
}

/// The model picker's list for the saved provider: the cached one (younger than a day) unless `refresh`, else
/// the provider's. Without a list (`origin: "none"`) the picker offers a free-text field; `problem` says why.
#[tauri::command]
pub(crate) async fn list_models(
    service: State<'_, SettingsService>,
    lists: State<'_, ModelLists>,
    refresh: bool,
) -> Result<ModelListView, CommandError> {
    let env = std::env::vars().collect();
    Ok(lists
        .inner()
        .list_for_settings(service.inner(), &env, refresh)
        .await?)
}

/// What we know of a model id (one typed into the free-text field, for instance): its context window, output
/// limit, image input and price, or the stated defaults.
#[tauri::command]
pub(crate) fn describe_model(model_id: String) -> ModelEntry {
    model_list::describe_model(model_id.trim(), None)
}

/// "Test connection": reaches the provider the form names (its typed key, else the stored one), says what
/// failed, and lists its models (kept for the picker).
#[tauri::command]
pub(crate) async fn test_connection(
    service: State<'_, SettingsService>,
    lists: State<'_, ModelLists>,
    input: ConnectionTestInput,
) -> Result<ConnectionReport, CommandError> {
    let env = std::env::vars().collect();
    Ok(test_form(service.inner(), lists.inner(), &env, &input).await?)
}

/// Runs settings-file work on the blocking pool.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CommandError> + Send + 'static,
) -> Result<T, CommandError> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|error| {
            CommandError::new(
                ErrorKind::Internal,
                format!("The connection settings work stopped unexpectedly ({error}). Try again."),
            )
        })?
}

#[cfg(test)]
mod tests;
