//! From resolved settings to what the Agent needs: the [`Model`], a [`Models`] registry holding one provider
//! with the key, and the `stream_fn` over it (the book's `models.streamSimple.bind(models)`).
//!
//! The key goes into the provider's auth and nowhere else; `Provider`'s `Debug` redacts it.

use std::sync::Arc;

use pi_ai::{
    Api, InputModality, Model, ModelCost, ModelThinkingLevel, Models, Provider, ProviderAuth,
    providers,
};

use crate::scripted_model::ScriptedModel;
use crate::settings::ResolvedSettings;

/// Context window assumed for configured models (the app has no per-model catalogue).
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
/// Output cap assumed for configured models.
pub const DEFAULT_MAX_TOKENS: u64 = 8_192;

/// Why the model layer could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ModelSetupError {
    /// The HTTP client could not be built.
    #[error("cannot set up the model layer: {0}")]
    Client(String),
}

/// The model the settings name.
pub fn model_for(settings: &ResolvedSettings) -> Model {
    Model {
        id: settings.model.clone(),
        name: settings.model.clone(),
        api: Api::new(settings.api.clone()),
        provider: settings.provider.clone(),
        base_url: settings.base_url.clone(),
        reasoning: settings.thinking_level != ModelThinkingLevel::Off,
        thinking_level_map: None,
        input: vec![InputModality::Text],
        cost: ModelCost::default(),
        context_window: DEFAULT_CONTEXT_WINDOW,
        max_tokens: DEFAULT_MAX_TOKENS,
        sampling_params: None,
        headers: None,
        compat: None,
    }
}

/// A registry with the settings' provider: the three HTTP APIs plus `scripted`, the key in its auth.
pub fn models_for(settings: &ResolvedSettings) -> Result<Models, ModelSetupError> {
    let client =
        providers::http_client().map_err(|error| ModelSetupError::Client(error.to_string()))?;
    let mut provider = Provider::new(settings.provider.clone()).with_api(Arc::new(ScriptedModel));
    for api in providers::builtin_apis(&client) {
        provider = provider.with_api(api);
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
