//! "Test connection" of the setup card and the settings screen: given a preset, a base URL and a key (typed, not
//! yet saved), reach the provider the way the chat will (same client, same proxy, loopback direct), ask for its
//! model list, and say clearly what failed: the name does not resolve, nothing listens, TLS, the proxy, 401/403,
//! no list on the models path (404), a timeout. A list that arrives is kept in the model-list cache, so the picker
//! shows it at once.

use std::collections::HashMap;
use std::time::Instant;

use pi_ai::CancellationToken;
use pi_ai::providers::{ProxyChoice, redact_credentials};
use serde::{Deserialize, Serialize};

use crate::connection::http_client;
use crate::model_list::{
    LIST_TIMEOUT, ModelEntry, ModelLists, Problem, ProblemKind, ProviderTarget, describe_model,
    fetch_models, problem,
};
use crate::settings::{
    ApiKey, ApiKeySource, ConnectionOptions, ProviderPreset, SUPPORTED_APIS, SettingsFailure,
    SettingsService, SettingsServiceError,
};

/// What the form holds; empty strings mean the preset's value (and, for the key, the stored or environment key).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConnectionTestInput {
    /// A preset id (`openai`, `ollama`, …) or empty.
    pub preset: String,
    /// The API, or empty for the preset's.
    pub api: String,
    /// The base URL, or empty for the preset's.
    pub base_url: String,
    /// A key typed into the form, or empty to use the stored one (or `PI_API_KEY` / the preset's variable).
    pub api_key: String,
}

/// Which way the test went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ConnectionRoute {
    /// Straight to the server (a loopback server, no proxy chosen, or none that applies to this host).
    Direct,
    /// Through the proxy the system settings name for this host.
    SystemProxy,
    /// Through the proxy of the settings.
    ManualProxy,
}

/// What "Test connection" shows.
#[derive(Clone, Debug, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConnectionReport {
    /// The provider answered: it listed its models, or it has no list (then `problem` is `no_model_list` and the
    /// model id is typed).
    pub ok: bool,
    /// What failed, or why there is no list.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub problem: Option<Problem>,
    /// The address asked (credentials removed).
    pub url: String,
    /// Which way the request went.
    pub route: ConnectionRoute,
    /// The proxy it went through (credentials removed), when it went through one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub proxy: Option<String>,
    /// How long it took.
    pub elapsed_ms: u64,
    /// The models, in the server's order (empty without a list).
    pub models: Vec<ModelEntry>,
}

/// The provider the form names. `Err` says what to fill in.
pub fn target_from_input(
    input: &ConnectionTestInput,
    env: &HashMap<String, String>,
    key_source: &dyn ApiKeySource,
) -> Result<ProviderTarget, String> {
    let non_blank = |value: &str| Some(value.trim().to_owned()).filter(|value| !value.is_empty());
    let preset =
        match non_blank(&input.preset) {
            None => None,
            Some(name) => Some(ProviderPreset::parse(&name).ok_or_else(|| {
                format!("Unknown provider preset {name:?}: pick one from the list.")
            })?),
        };
    let defaults = preset.map(ProviderPreset::defaults);
    let api = non_blank(&input.api)
        .or_else(|| defaults.map(|d| d.api.to_owned()))
        .ok_or_else(|| "Choose a provider, or enter the API and the server address.".to_owned())?;
    if api == "scripted" {
        return Err("The scripted model is offline: there is no connection to test.".to_owned());
    }
    if !SUPPORTED_APIS.contains(&api.as_str()) {
        return Err(format!(
            "Unknown API {api:?}: use openai-completions, openai-responses or anthropic-messages."
        ));
    }
    let base_url = non_blank(&input.base_url)
        .or_else(|| defaults.map(|d| d.base_url.to_owned()))
        .ok_or_else(|| {
            "Enter the server address (for example http://127.0.0.1:8080/v1).".to_owned()
        })?;
    let provider = defaults.map_or_else(|| api.clone(), |d| d.provider.to_owned());
    let from_env = |name: &str| {
        env.get(name)
            .map(|value| ApiKey::new(value.as_str()))
            .filter(|key| !key.expose().is_empty())
    };
    let api_key = match non_blank(&input.api_key) {
        Some(typed) => Some(ApiKey::new(typed)),
        None => match from_env("PI_API_KEY")
            .or_else(|| defaults.and_then(|d| d.key_env).and_then(from_env))
        {
            Some(key) => Some(key),
            None => key_source
                .api_key(&provider)
                .map_err(|reason| format!("Cannot read the stored key: {reason}."))?,
        },
    };
    Ok(ProviderTarget {
        preset,
        provider,
        api,
        base_url,
        api_key,
    })
}

/// Reaches `target` through `connection`'s client and reports; a list that arrives goes into `lists`. Takes at
/// most the head timeout, and never more than [`LIST_TIMEOUT`].
pub async fn test_connection(
    target: &ProviderTarget,
    connection: &ConnectionOptions,
    lists: &ModelLists,
    cancel: &CancellationToken,
) -> ConnectionReport {
    let started = Instant::now();
    let first_url = target
        .list_requests()
        .first()
        .map(|(_, url)| url.clone())
        .unwrap_or_default();
    let client = match http_client(connection) {
        Ok(client) => client,
        Err(error) => {
            return ConnectionReport {
                ok: false,
                problem: Some(Problem {
                    kind: ProblemKind::Proxy,
                    message: format!(
                        "{}. Fix the proxy in Settings → Connection.",
                        redact_credentials(&error.to_string())
                    ),
                }),
                url: redact_credentials(&first_url),
                route: ConnectionRoute::Direct,
                proxy: None,
                elapsed_ms: elapsed_ms(started),
                models: Vec::new(),
            };
        }
    };
    let proxy = client.proxy_for(&first_url);
    let route = match (&proxy, client.proxy()) {
        (None, _) | (Some(_), ProxyChoice::Direct) => ConnectionRoute::Direct,
        (Some(_), ProxyChoice::System) => ConnectionRoute::SystemProxy,
        (Some(_), ProxyChoice::Manual(_)) => ConnectionRoute::ManualProxy,
    };
    let timeout = connection.head_timeout.min(LIST_TIMEOUT);
    let outcome = fetch_models(&client, target, timeout, cancel).await;
    let elapsed = elapsed_ms(started);
    match outcome {
        Ok(fetched) => {
            let models = fetched
                .models
                .iter()
                .map(|listed| describe_model(&listed.id, Some(listed)))
                .collect();
            let url = redact_credentials(&fetched.url);
            lists.store(target, fetched.models);
            tracing::info!(%url, ?route, elapsed_ms = elapsed, "connection test: listed models");
            ConnectionReport {
                ok: true,
                problem: None,
                url,
                route,
                proxy,
                elapsed_ms: elapsed,
                models,
            }
        }
        Err(failure) => {
            let described = problem::describe(&failure, target);
            let ok = described.kind == ProblemKind::NoModelList;
            tracing::info!(
                url = %redact_credentials(failure.url()),
                kind = ?described.kind,
                ?route,
                elapsed_ms = elapsed,
                "connection test: no list"
            );
            ConnectionReport {
                ok,
                problem: Some(described),
                url: redact_credentials(failure.url()),
                route,
                proxy,
                elapsed_ms: elapsed,
                models: Vec::new(),
            }
        }
    }
}

/// "Test connection" for the settings form: the provider `input` names (its key, else the stored or
/// environment one), reached with the stored connection settings; a list that arrives goes into `lists`.
/// `Err` when the form or the stored settings cannot be used (the message says what to fill in).
pub async fn test_form(
    service: &SettingsService,
    lists: &ModelLists,
    env: &HashMap<String, String>,
    input: &ConnectionTestInput,
) -> Result<ConnectionReport, SettingsServiceError> {
    // The stored key and the connection settings come from the keychain and the settings file: off the async
    // workers.
    let (target, connection) = {
        let service = service.clone();
        let env = env.clone();
        let input = input.clone();
        tokio::task::spawn_blocking(move || {
            let target = target_from_input(&input, &env, &service).map_err(|message| {
                SettingsServiceError {
                    kind: SettingsFailure::Invalid,
                    message,
                }
            })?;
            Ok::<_, SettingsServiceError>((target, service.connection_options()?))
        })
        .await
        .map_err(|error| SettingsServiceError {
            kind: SettingsFailure::Settings,
            message: format!("Reading the settings stopped unexpectedly ({error}). Try again."),
        })??
    };
    Ok(test_connection(&target, &connection, lists, &CancellationToken::new()).await)
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests;
