//! HTTP provider adapters, one module per wire protocol, and the plumbing they share.
//!
//! * [`OpenAiCompletions`] — `openai-completions` (OpenAI Chat Completions and compatible servers: Ollama,
//!   llama.cpp server, vLLM, LM Studio, DeepSeek, OpenRouter, DashScope compatible mode, …);
//! * [`OpenAiResponses`] — `openai-responses`;
//! * [`AnthropicMessages`] — `anthropic-messages`.
//!
//! Each implements [`crate::ApiProvider`]; [`builtin_apis`] returns all three sharing one [`HttpClient`], and
//! [`anthropic`], [`openai`] and [`openai_compatible`] build ready [`crate::Provider`]s for a
//! [`crate::Models`] registry. The client chooses the proxy ([`ProxyChoice`]; loopback hosts never go through
//! one) and also serves plain JSON requests ([`HttpClient::get_json`], for model lists), whose failures say
//! what broke ([`FetchError`], [`TransportFailure`]).

mod anthropic_messages;
mod client;
mod common;
mod error_message;
mod exchange;
mod http;
mod openai_completions;
mod openai_responses;
mod output;
mod sse;

use std::sync::Arc;

pub use anthropic_messages::AnthropicMessages;
pub use client::{
    DEFAULT_CONNECT_TIMEOUT, FetchError, HttpClient, HttpClientOptions, ProxyChoice, Route,
    TransportFailure, is_loopback_url, redact_credentials,
};
pub use openai_completions::OpenAiCompletions;
pub use openai_responses::OpenAiResponses;

use crate::model::Model;
use crate::provider::{ApiProvider, Provider, ProviderAuth};

/// Errors building the shared HTTP client.
#[derive(Debug, thiserror::Error)]
pub enum ProvidersError {
    /// The TLS / HTTP client could not be initialised.
    #[error("cannot initialise the HTTP client: {0}")]
    Client(String),
    /// The manual proxy setting cannot be used (its credentials are never part of the text).
    #[error("invalid proxy: {0}")]
    Proxy(String),
}

/// A new HTTP client for the adapters with the system's proxy ([`HttpClientOptions::default`]).
pub fn http_client() -> Result<HttpClient, ProvidersError> {
    HttpClient::new(&HttpClientOptions::default())
}

/// The three HTTP adapters sharing `client`.
pub fn builtin_apis(client: &HttpClient) -> Vec<Arc<dyn ApiProvider>> {
    vec![
        Arc::new(OpenAiCompletions::new(client.clone())),
        Arc::new(OpenAiResponses::new(client.clone())),
        Arc::new(AnthropicMessages::new(client.clone())),
    ]
}

fn with_all_apis(mut provider: Provider, client: &HttpClient) -> Provider {
    for api in builtin_apis(client) {
        provider = provider.with_api(api);
    }
    provider
}

/// The `anthropic` provider (key from `ANTHROPIC_API_KEY` unless given) serving `models`.
pub fn anthropic(client: &HttpClient, api_key: Option<String>, models: Vec<Model>) -> Provider {
    let mut provider = with_all_apis(Provider::new("anthropic"), client)
        .with_auth(ProviderAuth::ApiKey {
            key: api_key,
            env_vars: vec!["ANTHROPIC_API_KEY".into()],
        })
        .with_models(models);
    provider.name = "Anthropic".into();
    provider
}

/// The `openai` provider (key from `OPENAI_API_KEY` unless given) serving `models`.
pub fn openai(client: &HttpClient, api_key: Option<String>, models: Vec<Model>) -> Provider {
    let mut provider = with_all_apis(Provider::new("openai"), client)
        .with_auth(ProviderAuth::ApiKey {
            key: api_key,
            env_vars: vec!["OPENAI_API_KEY".into()],
        })
        .with_models(models);
    provider.name = "OpenAI".into();
    provider
}

/// An OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio, DeepSeek, OpenRouter, DashScope…) under
/// provider id `id`. `base_url` (e.g. `http://localhost:11434/v1`) overrides every model's; local servers
/// need no key, so `api_key: None` sends the placeholder key `"none"`.
pub fn openai_compatible(
    client: &HttpClient,
    id: &str,
    base_url: Option<String>,
    api_key: Option<String>,
    models: Vec<Model>,
) -> Provider {
    let mut provider = with_all_apis(Provider::new(id), client)
        .with_auth(ProviderAuth::ApiKey {
            key: Some(api_key.unwrap_or_else(|| "none".into())),
            env_vars: Vec::new(),
        })
        .with_models(models);
    provider.base_url = base_url;
    provider
}
