//! From resolved settings to what the Agent needs: the [`Model`], a [`Models`] registry holding one provider
//! with the key, and the `stream_fn` over it (the book's `models.streamSimple.bind(models)`).
//!
//! The model's context window, output limit, image input and price come from the known-models table
//! ([`crate::model_list::describe_model`]; stated defaults for models it does not know). Every request of the
//! provider takes the connection settings ([`crate::connection::apply_connection`]: idle and head timeouts,
//! retries) and goes out through a client with the user's proxy, loopback servers directly.
//!
//! The key goes into the provider's auth and nowhere else; `Provider`'s `Debug` redacts it.

use std::sync::Arc;

use pi_ai::{
    Api, ApiProvider, AssistantMessageEventStream, Context, InputModality, Model, ModelCost,
    ModelThinkingLevel, Models, Provider, ProviderAuth, RetryHook, SimpleStreamOptions, providers,
};

use crate::connection::{apply_connection, http_client};
use crate::model_list::{UNKNOWN_CONTEXT_WINDOW, UNKNOWN_MAX_OUTPUT_TOKENS, describe_model};
use crate::scripted_model::ScriptedModel;
use crate::settings::{ConnectionOptions, ResolvedSettings};

/// Context window assumed for configured models the known-models table does not know.
pub const DEFAULT_CONTEXT_WINDOW: u64 = UNKNOWN_CONTEXT_WINDOW;
/// Output cap assumed for configured models the known-models table does not know.
pub const DEFAULT_MAX_TOKENS: u64 = UNKNOWN_MAX_OUTPUT_TOKENS;

/// Why the model layer could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ModelSetupError {
    /// The HTTP client could not be built (a manual proxy it cannot use, for one).
    #[error("cannot set up the model layer: {0}")]
    Client(String),
}

/// The model the settings name, with what the known-models table says of it.
pub fn model_for(settings: &ResolvedSettings) -> Model {
    let entry = describe_model(&settings.model, None);
    let mut input = vec![InputModality::Text];
    if entry.image_input {
        input.push(InputModality::Image);
    }
    let cost = entry
        .pricing
        .map_or_else(ModelCost::default, |pricing| ModelCost {
            input: pricing.input,
            output: pricing.output,
            cache_read: pricing.cache_read,
            cache_write: pricing.cache_write,
            tiers: None,
        });
    Model {
        id: settings.model.clone(),
        name: settings.model.clone(),
        api: Api::new(settings.api.clone()),
        provider: settings.provider.clone(),
        base_url: settings.base_url.clone(),
        reasoning: settings.thinking_level != ModelThinkingLevel::Off,
        thinking_level_map: None,
        input,
        cost,
        context_window: entry.context_window,
        max_tokens: entry.max_output_tokens,
        sampling_params: None,
        headers: None,
        compat: None,
    }
}

/// A registry with the settings' provider: the three HTTP APIs plus `scripted`, the key in its auth, every
/// request with the settings' connection. Retries are not reported; see [`models_reporting_retries`].
pub fn models_for(settings: &ResolvedSettings) -> Result<Models, ModelSetupError> {
    build_models(settings, None)
}

/// [`models_for`], and `on_retry` is told of every retry before its wait (the window shows "retrying in N s
/// (2/3)" from it; Stop cancels the wait through the run's signal).
pub fn models_reporting_retries(
    settings: &ResolvedSettings,
    on_retry: RetryHook,
) -> Result<Models, ModelSetupError> {
    build_models(settings, Some(on_retry))
}

fn build_models(
    settings: &ResolvedSettings,
    on_retry: Option<RetryHook>,
) -> Result<Models, ModelSetupError> {
    let client = http_client(&settings.connection)
        .map_err(|error| ModelSetupError::Client(error.to_string()))?;
    let mut provider = Provider::new(settings.provider.clone()).with_api(Arc::new(ScriptedModel));
    for api in providers::builtin_apis(&client) {
        provider = provider.with_api(Arc::new(Connected {
            api,
            connection: settings.connection.clone(),
            on_retry: on_retry.clone(),
        }));
    }
    provider = provider.with_models([model_for(settings)]);
    provider.auth = match &settings.api_key {
        Some(api_key) => ProviderAuth::ApiKey {
            key: Some(api_key.expose().to_owned()),
            env_vars: Vec::new(),
        },
        // Local OpenAI-compatible servers accept any key; sending a placeholder keeps adapters that require one
        // happy without ever reading the process environment behind the settings' back.
        None if settings.api != "scripted" => ProviderAuth::ApiKey {
            key: Some("none".to_owned()),
            env_vars: Vec::new(),
        },
        None => ProviderAuth::None,
    };
    let models = Models::new();
    models.set_provider(provider);
    Ok(models)
}

/// An HTTP API whose requests take the connection settings.
struct Connected {
    api: Arc<dyn ApiProvider>,
    connection: ConnectionOptions,
    on_retry: Option<RetryHook>,
}

impl ApiProvider for Connected {
    fn api(&self) -> Api {
        self.api.api()
    }

    fn stream_simple(
        &self,
        model: Model,
        context: Context,
        mut options: SimpleStreamOptions,
    ) -> AssistantMessageEventStream {
        apply_connection(&mut options.base, &self.connection, self.on_retry.as_ref());
        self.api.stream_simple(model, context, options)
    }
}
