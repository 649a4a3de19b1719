//! The connection and the models, for the setup card, the settings screen and the model picker: the connection
//! settings (timeouts, retries, proxy), the provider's model list (cached, with a refresh), one model's figures,
//! and "Test connection"; for the setup card whether a provider is usable and which local servers answer; the
//! model of one conversation. Thin wrappers over desktop-host's `model_list`, `connection_test`,
//! `SettingsService` and `Conversations`; results never hold a key.

use std::collections::HashMap;

use desktop_host::connection_test::{ConnectionReport, ConnectionTestInput, test_form};
use desktop_host::conversations::Conversations;
use desktop_host::model_list::{self, ModelEntry, ModelListView, ModelLists};
use desktop_host::settings::{ConnectionSettings, ProviderPreset, SettingsService};
use desktop_host::store::ConversationId;
use serde::Serialize;
use tauri::State;

use crate::command_error::{CommandError, ErrorCode, to_command_error};

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

/// Whether the saved settings (with the environment) name a usable provider, as the setup card and Send ask.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase", tag = "status")]
#[ts(export)]
pub(crate) enum ProviderStatus {
    /// A provider and model are set; the next prompt goes to them.
    Usable { provider: String, model: String },
    /// Nothing usable yet; `message` says what is missing (safe to show: never a key).
    Unusable { message: String },
}

/// A local model server that answered, offered first on the setup card.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub(crate) struct LocalServer {
    /// The preset (`ollama` or `llamacpp`).
    pub preset: String,
    /// The address it answered at (the settings' base URL).
    pub base_url: String,
    /// Its models, in the server's order.
    pub models: Vec<ModelEntry>,
}

/// The saved provider's state: usable (which provider and model) or what is missing.
#[tauri::command]
pub(crate) async fn provider_status(
    service: State<'_, SettingsService>,
) -> Result<ProviderStatus, CommandError> {
    let service = service.inner().clone();
    blocking(move || {
        let env = std::env::vars().collect();
        Ok(match service.resolve(&env, None) {
            Ok(resolved) => ProviderStatus::Usable {
                provider: resolved.provider,
                model: resolved.model,
            },
            Err(error) => ProviderStatus::Unusable {
                message: error.message,
            },
        })
    })
    .await
}

/// The local servers that answer now: Ollama (at `OLLAMA_HOST`, else its default address) and llama.cpp (its
/// default address), each with its models. Servers that do not answer are left out.
#[tauri::command]
pub(crate) async fn detect_local_servers(
    service: State<'_, SettingsService>,
    lists: State<'_, ModelLists>,
) -> Result<Vec<LocalServer>, CommandError> {
    let env: HashMap<String, String> = std::env::vars().collect();
    let candidates = [
        (ProviderPreset::Ollama, ollama_base_url(&env)),
        (
            ProviderPreset::LlamaCpp,
            ProviderPreset::LlamaCpp.defaults().base_url.to_owned(),
        ),
    ];
    let mut found = Vec::new();
    for (preset, base_url) in candidates {
        let input = ConnectionTestInput {
            preset: preset.as_str().to_owned(),
            api: String::new(),
            base_url: base_url.clone(),
            api_key: String::new(),
        };
        match test_form(service.inner(), lists.inner(), &env, &input).await {
            Ok(report) if report.ok && !report.models.is_empty() => found.push(LocalServer {
                preset: preset.as_str().to_owned(),
                base_url,
                models: report.models,
            }),
            Ok(_) => {}
            Err(error) => {
                tracing::info!(%error, preset = preset.as_str(), "local server check failed")
            }
        }
    }
    Ok(found)
}

/// Ollama's OpenAI-compatible base URL: from `OLLAMA_HOST` (`host:port` or a URL, as Ollama reads it), else
/// the default address.
fn ollama_base_url(env: &HashMap<String, String>) -> String {
    let host = env
        .get("OLLAMA_HOST")
        .map(|host| host.trim().trim_end_matches('/'))
        .filter(|host| !host.is_empty());
    match host {
        None => desktop_host::settings::OLLAMA_DEFAULT_BASE_URL.to_owned(),
        Some(host) if host.starts_with("http://") || host.starts_with("https://") => {
            format!("{host}/v1")
        }
        Some(host) => format!("http://{host}/v1"),
    }
}

/// Chooses the model of conversation `conversation_id` (the header's picker): stored with it, used from its
/// next turn.
#[tauri::command]
pub(crate) async fn set_conversation_model(
    service: State<'_, SettingsService>,
    conversations: State<'_, Conversations>,
    conversation_id: String,
    model: String,
) -> Result<(), CommandError> {
    let model = model.trim().to_owned();
    if model.is_empty() {
        return Err(CommandError::bare(ErrorCode::ModelRequired));
    }
    let service = service.inner().clone();
    let conversations = conversations.inner().clone();
    blocking(move || {
        let env = std::env::vars().collect();
        let resolved = service.resolve(&env, None)?;
        conversations
            .set_conversation_model(&ConversationId::from(conversation_id), &model, &resolved)
            .map_err(to_command_error)
    })
    .await
}

/// Runs settings-file work on the blocking pool.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CommandError> + Send + 'static,
) -> Result<T, CommandError> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(CommandError::work_stopped)?
}

#[cfg(test)]
mod tests;
