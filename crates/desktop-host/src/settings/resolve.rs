//! One resolution of the provider settings, used by the app and by `pi-chat`.
//!
//! Precedence, per field: environment (`PI_API`, `PI_BASE_URL`, `PI_MODEL`) over the settings file over the
//! preset's default. The preset is the file's `provider`; without one, `PI_API` picks the matching preset
//! (OpenAI for `openai-*`, Anthropic for `anthropic-messages`). With nothing configured at all, an
//! `ANTHROPIC_API_KEY` or `OPENAI_API_KEY` in the environment selects that provider, then a reachable local Ollama
//! at its default address; otherwise resolution fails with a message that says exactly what to set.
//!
//! The key: the variable named by `--api-key-env`, then `PI_API_KEY`, then the preset's own variable
//! (`OPENAI_API_KEY`, …), then the pluggable [`ApiKeySource`] (the keychain in the app). A key is required only
//! when talking to a preset's own hosted endpoint; a custom base URL (a local or loopback server) may go without.
//! Keys never enter logs or error texts.

use std::collections::HashMap;
use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

use pi_ai::ModelThinkingLevel;

use crate::language::Language;
use crate::session::QueueMode;
use crate::settings::api_key::{ApiKey, ApiKeyOrigin, ApiKeySource};
use crate::settings::file::SettingsFile;
use crate::settings::presets::{OLLAMA_DEFAULT_BASE_URL, ProviderPreset};

/// The APIs `PI_API` accepts.
pub const SUPPORTED_APIS: [&str; 4] = [
    "openai-completions",
    "openai-responses",
    "anthropic-messages",
    "scripted",
];

/// The default system prompt in Chinese (the book's desktop assistant).
pub const DEFAULT_SYSTEM_PROMPT_ZH: &str = "你是一个桌面助手。\n需要本机信息时使用工具，不要猜测。";
/// The default system prompt in English.
pub const DEFAULT_SYSTEM_PROMPT_EN: &str = "You are a desktop assistant.\nUse the tools when you need information from this computer; do not guess.";

/// Checks whether a local model server answers (plugged in so tests need no network).
pub trait LocalServerProbe: Send + Sync {
    /// True when something accepts connections at the host and port of `base_url`.
    fn is_reachable(&self, base_url: &str) -> bool;
}

/// Probes with a TCP connect and a short timeout.
#[derive(Clone, Copy, Debug)]
pub struct TcpProbe {
    /// How long one connection attempt may take.
    pub timeout: Duration,
}

impl Default for TcpProbe {
    fn default() -> Self {
        TcpProbe {
            timeout: Duration::from_millis(300),
        }
    }
}

impl LocalServerProbe for TcpProbe {
    fn is_reachable(&self, base_url: &str) -> bool {
        let Some(authority) = authority_of(base_url) else {
            return false;
        };
        let Ok(addresses) = authority.to_socket_addrs() else {
            return false;
        };
        addresses
            .into_iter()
            .any(|address| TcpStream::connect_timeout(&address, self.timeout).is_ok())
    }
}

/// What resolution reads.
pub struct ResolveInputs<'a> {
    /// The settings file's content.
    pub file: &'a SettingsFile,
    /// The environment (or `pi-chat`'s flags merged over it).
    pub env: &'a HashMap<String, String>,
    /// `--api-key-env NAME`: read the key from this variable.
    pub key_env_override: Option<&'a str>,
    /// Stored keys (the keychain in the app).
    pub key_source: &'a dyn ApiKeySource,
    /// Checks for a local Ollama when nothing is configured.
    pub probe: &'a dyn LocalServerProbe,
    /// Where the settings file lives, for messages.
    pub settings_path: Option<&'a Path>,
}

/// Why the provider was chosen (safe to show and log).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProviderChoice {
    /// The settings file or `PI_*` variables named it.
    Configured,
    /// Nothing was configured, but this key variable was set.
    KeyInEnvironment(&'static str),
    /// Nothing was configured and a local Ollama answered.
    LocalOllama,
}

/// The resolved settings of a session: the provider, and how its tools ask. `Debug` is safe to log: the key prints
/// redacted.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedSettings {
    /// The preset in effect, if any.
    pub preset: Option<ProviderPreset>,
    /// pi's provider id.
    pub provider: String,
    /// The wire protocol.
    pub api: String,
    /// The endpoint base.
    pub base_url: String,
    /// The model id.
    pub model: String,
    /// The thinking level.
    pub thinking_level: ModelThinkingLevel,
    /// Timeouts, retries and proxy of the provider's requests (the file's connection settings).
    pub connection: crate::settings::ConnectionOptions,
    /// The system prompt.
    pub system_prompt: String,
    /// The language of host-written texts.
    pub language: Language,
    /// The key, when one was found.
    pub api_key: Option<ApiKey>,
    /// Where the key came from.
    pub api_key_origin: Option<ApiKeyOrigin>,
    /// Why this provider.
    pub choice: ProviderChoice,
    /// Every built-in desktop tool call asks first (the file's `askBeforeBuiltInTools`, default off).
    pub ask_before_built_in_tools: bool,
    /// How many steering messages one poll delivers (the file's `steeringMode`, default one at a time).
    pub steering_mode: QueueMode,
    /// How many follow-ups one poll delivers (the file's `followUpMode`, default one at a time).
    pub follow_up_mode: QueueMode,
}

/// Why no usable provider could be resolved. Each text says what to set.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// Nothing configured and no local Ollama.
    #[error(
        "no model provider is configured and no Ollama answers at {ollama}: set PI_API, PI_BASE_URL and PI_MODEL \
         (and PI_API_KEY if the server needs one), or set OPENAI_API_KEY or ANTHROPIC_API_KEY, or choose a \
         provider in {settings}, or start Ollama"
    )]
    NothingConfigured {
        /// The address probed.
        ollama: String,
        /// Where the settings file is.
        settings: String,
    },
    /// The provider needs a key and none was found.
    #[error(
        "no API key for {provider}: set {key_env} (or PI_API_KEY), or store a key for {provider} in the app"
    )]
    MissingApiKey {
        /// pi's provider id.
        provider: String,
        /// The variable to set.
        key_env: String,
    },
    /// `--api-key-env` names a variable that is not set.
    #[error("the variable {key_env} named by --api-key-env is not set")]
    KeyEnvNotSet {
        /// The variable.
        key_env: String,
    },
    /// `PI_API` (or the file's `api`) names an API this app cannot speak.
    #[error(
        "unknown API {api:?}: set PI_API to one of openai-completions, openai-responses, anthropic-messages, scripted"
    )]
    UnknownApi {
        /// The value given.
        api: String,
    },
    /// The key source failed.
    #[error("cannot read the stored API key for {provider}: {reason}")]
    KeySource {
        /// pi's provider id.
        provider: String,
        /// What the key source said (never the key).
        reason: String,
    },
}

/// Resolves the provider settings. See the module doc for the precedence rules.
pub fn resolve_settings(inputs: &ResolveInputs<'_>) -> Result<ResolvedSettings, SettingsError> {
    let env_value = |key: &str| {
        inputs
            .env
            .get(key)
            .map(|value| value.trim())
            .filter(|value| !value.is_empty())
    };
    let file = inputs.file;
    let api_override = env_value("PI_API")
        .map(str::to_owned)
        .or_else(|| file.api.clone());
    if let Some(api) = &api_override
        && !SUPPORTED_APIS.contains(&api.as_str())
    {
        return Err(SettingsError::UnknownApi { api: api.clone() });
    }
    let base_url_override = env_value("PI_BASE_URL")
        .map(str::to_owned)
        .or_else(|| file.base_url.clone());
    let model_override = env_value("PI_MODEL")
        .map(str::to_owned)
        .or_else(|| file.model.clone());

    let configured =
        file.provider.is_some() || api_override.is_some() || base_url_override.is_some();
    let (preset, choice) = if let Some(preset) = file.provider {
        (Some(preset), ProviderChoice::Configured)
    } else if configured {
        (
            api_override.as_deref().and_then(preset_for_api),
            ProviderChoice::Configured,
        )
    } else if env_value("ANTHROPIC_API_KEY").is_some() {
        (
            Some(ProviderPreset::Anthropic),
            ProviderChoice::KeyInEnvironment("ANTHROPIC_API_KEY"),
        )
    } else if env_value("OPENAI_API_KEY").is_some() {
        (
            Some(ProviderPreset::Openai),
            ProviderChoice::KeyInEnvironment("OPENAI_API_KEY"),
        )
    } else if inputs.probe.is_reachable(OLLAMA_DEFAULT_BASE_URL) {
        (Some(ProviderPreset::Ollama), ProviderChoice::LocalOllama)
    } else {
        return Err(SettingsError::NothingConfigured {
            ollama: OLLAMA_DEFAULT_BASE_URL.to_owned(),
            settings: inputs.settings_path.map_or_else(
                || "the settings file".to_owned(),
                |path| path.display().to_string(),
            ),
        });
    };

    let defaults = preset.map(ProviderPreset::defaults);
    let api = api_override
        .or_else(|| defaults.map(|d| d.api.to_owned()))
        .unwrap_or_else(|| "scripted".to_owned());
    let provider = match defaults {
        Some(defaults) => defaults.provider.to_owned(),
        None => api.clone(),
    };
    let uses_preset_endpoint = base_url_override.is_none();
    let base_url = base_url_override
        .or_else(|| defaults.map(|d| d.base_url.to_owned()))
        .unwrap_or_default();
    let model = model_override
        .or_else(|| defaults.map(|d| d.model.to_owned()))
        .unwrap_or_else(|| api.clone());

    let (api_key, api_key_origin) =
        resolve_key(inputs, &provider, defaults.and_then(|d| d.key_env))?;
    let key_required =
        api != "scripted" && uses_preset_endpoint && defaults.is_some_and(|d| d.key_env.is_some());
    if api_key.is_none() && key_required {
        let key_env = defaults.and_then(|d| d.key_env).unwrap_or("PI_API_KEY");
        return Err(SettingsError::MissingApiKey {
            provider,
            key_env: key_env.to_owned(),
        });
    }

    let language = file
        .language
        .unwrap_or_else(|| Language::from_locale_env(inputs.env));
    let system_prompt = file.system_prompt.clone().unwrap_or_else(|| {
        language
            .pick(DEFAULT_SYSTEM_PROMPT_ZH, DEFAULT_SYSTEM_PROMPT_EN)
            .to_owned()
    });
    let resolved = ResolvedSettings {
        connection: crate::settings::ConnectionSettings::from_file(file).options(),
        preset,
        provider,
        api,
        base_url,
        model,
        thinking_level: file.thinking_level.unwrap_or_default(),
        system_prompt,
        language,
        api_key,
        api_key_origin,
        choice,
        ask_before_built_in_tools: file.ask_before_built_in_tools.unwrap_or(false),
        steering_mode: file.steering_mode.unwrap_or_default(),
        follow_up_mode: file.follow_up_mode.unwrap_or_default(),
    };
    tracing::info!(
        provider = %resolved.provider,
        api = %resolved.api,
        base_url = %resolved.base_url,
        model = %resolved.model,
        key_origin = ?resolved.api_key_origin,
        choice = ?resolved.choice,
        "resolved provider settings"
    );
    Ok(resolved)
}

fn resolve_key(
    inputs: &ResolveInputs<'_>,
    provider: &str,
    preset_key_env: Option<&'static str>,
) -> Result<(Option<ApiKey>, Option<ApiKeyOrigin>), SettingsError> {
    let from_env = |key: &str| {
        inputs
            .env
            .get(key)
            .map(|value| ApiKey::new(value.as_str()))
            .filter(|api_key| !api_key.expose().is_empty())
            .map(|api_key| (Some(api_key), Some(ApiKeyOrigin::Env(key.to_owned()))))
    };
    if let Some(key_env) = inputs.key_env_override {
        return from_env(key_env).ok_or_else(|| SettingsError::KeyEnvNotSet {
            key_env: key_env.to_owned(),
        });
    }
    if let Some(found) = from_env("PI_API_KEY") {
        return Ok(found);
    }
    if let Some(found) = preset_key_env.and_then(from_env) {
        return Ok(found);
    }
    match inputs.key_source.api_key(provider) {
        Ok(Some(api_key)) => Ok((Some(api_key), Some(ApiKeyOrigin::KeySource))),
        Ok(None) => Ok((None, None)),
        Err(reason) => Err(SettingsError::KeySource {
            provider: provider.to_owned(),
            reason,
        }),
    }
}

fn preset_for_api(api: &str) -> Option<ProviderPreset> {
    match api {
        "openai-completions" | "openai-responses" => Some(ProviderPreset::Openai),
        "anthropic-messages" => Some(ProviderPreset::Anthropic),
        _ => None,
    }
}

/// `host:port` of an `http(s)://host:port/path` URL (default ports 80/443).
fn authority_of(base_url: &str) -> Option<String> {
    let (scheme, rest) = base_url.split_once("://")?;
    let authority = rest.split('/').next()?;
    if authority.is_empty() {
        return None;
    }
    if authority
        .rsplit_once(':')
        .is_some_and(|(_, port)| port.chars().all(|c| c.is_ascii_digit()))
    {
        return Some(authority.to_owned());
    }
    let port = if scheme.eq_ignore_ascii_case("https") {
        443
    } else {
        80
    };
    Some(format!("{authority}:{port}"))
}

#[cfg(test)]
mod tests;
