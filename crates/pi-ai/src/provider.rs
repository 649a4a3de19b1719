//! The provider seam: [`ApiProvider`] (one wire protocol) and [`Provider`] (an account/endpoint that serves
//! models over one or more APIs, spec 4.2).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::context::Context;
use crate::event_stream::AssistantMessageEventStream;
use crate::model::{Api, Model};
use crate::options::SimpleStreamOptions;

/// One wire-protocol implementation (pi's API provider: `openai-completions`, `anthropic-messages`, …).
///
/// Contract (spec 1.6, 4.3):
/// * `stream_simple` returns at once; all work (auth checks, request building, HTTP, parsing) happens behind
///   the returned stream, normally on a spawned tokio task.
/// * It never panics or fails for request, model or runtime failures: they end the stream with one `error`
///   event whose message has stopReason `error` (or `aborted` when `options.base.signal` is cancelled) and an
///   `errorMessage`, partial content and usage kept.
/// * A signal already cancelled when called yields a single `error(aborted)` event ("Request was aborted")
///   without `start`. A signal cancelled later ends the stream with `error(aborted)` promptly.
/// * Successful streams push `start` only once the response arrived, then block events, then one `done`.
/// * Scratch state (partial JSON buffers, provider indices) never appears in emitted messages.
pub trait ApiProvider: Send + Sync {
    /// The api this implementation serves; [`crate::Models`] dispatches on `model.api`.
    fn api(&self) -> Api;

    /// Streams one assistant response for `context` from `model`.
    fn stream_simple(
        &self,
        model: Model,
        context: Context,
        options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream;
}

/// How a [`Provider`] obtains credentials.
#[derive(Clone, Default, PartialEq, Eq)]
pub enum ProviderAuth {
    /// No credentials needed (local servers, the scripted provider).
    #[default]
    None,
    /// An API key: the request's `apiKey`, else `key`, else the first set variable of `env_vars` (looked up
    /// in the request's `env` first, then the process environment).
    ApiKey {
        /// A configured key.
        key: Option<String>,
        /// Environment variables to try, in order (e.g. `OPENAI_API_KEY`).
        env_vars: Vec<String>,
    },
}

impl fmt::Debug for ProviderAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProviderAuth::None => f.write_str("None"),
            ProviderAuth::ApiKey { key, env_vars } => f
                .debug_struct("ApiKey")
                .field("key", &key.as_ref().map(|_| "<redacted>"))
                .field("env_vars", env_vars)
                .finish(),
        }
    }
}

/// A provider: id, endpoint defaults, auth, a static model list and the API implementations its models use.
#[derive(Clone)]
pub struct Provider {
    /// Provider id (matches `model.provider`).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Overrides every model's `baseUrl` when set.
    pub base_url: Option<String>,
    /// Default headers sent with every request (request headers override them case-insensitively).
    pub headers: BTreeMap<String, String>,
    /// Credentials.
    pub auth: ProviderAuth,
    /// Models this provider serves.
    pub models: Vec<Model>,
    /// API implementations keyed by `model.api`.
    pub apis: BTreeMap<Api, Arc<dyn ApiProvider>>,
}

impl Provider {
    /// A provider with no models, no auth and no APIs.
    pub fn new(id: impl Into<String>) -> Self {
        let id = id.into();
        Self {
            name: id.clone(),
            id,
            base_url: None,
            headers: BTreeMap::new(),
            auth: ProviderAuth::None,
            models: Vec::new(),
            apis: BTreeMap::new(),
        }
    }

    /// Adds (or replaces) the implementation for its api.
    #[must_use]
    pub fn with_api(mut self, api: Arc<dyn ApiProvider>) -> Self {
        self.apis.insert(api.api(), api);
        self
    }

    /// Adds models; their `provider` field is set to this provider's id.
    #[must_use]
    pub fn with_models(mut self, models: impl IntoIterator<Item = Model>) -> Self {
        for mut model in models {
            model.provider.clone_from(&self.id);
            self.models.push(model);
        }
        self
    }

    /// Sets the auth method.
    #[must_use]
    pub fn with_auth(mut self, auth: ProviderAuth) -> Self {
        self.auth = auth;
        self
    }

    /// The model with this id.
    pub fn model(&self, id: &str) -> Option<&Model> {
        self.models.iter().find(|model| model.id == id)
    }
}

impl fmt::Debug for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Provider")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("base_url", &self.base_url)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("auth", &self.auth)
            .field(
                "models",
                &self
                    .models
                    .iter()
                    .map(|model| &model.id)
                    .collect::<Vec<_>>(),
            )
            .field("apis", &self.apis.keys().collect::<Vec<_>>())
            .finish()
    }
}
