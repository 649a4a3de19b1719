//! What the three HTTP adapters share in building a request: request options turned into request settings
//! (max-tokens clamp, reasoning level, cache retention), reading compat settings (and the session-affinity
//! format both OpenAI APIs use), and small body-building helpers.

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::content::UserBlock;
use crate::context::{Context, Tool};
use crate::model::{Model, ModelThinkingLevel};
use crate::options::{CacheRetention, SimpleStreamOptions};

/// Request settings derived from the options (pi's `buildBaseOptions` + reasoning clamp).
#[derive(Debug, Clone)]
pub(crate) struct RequestSetup {
    /// Clamped max tokens (before any thinking-budget adjustment).
    pub(crate) max_tokens: u64,
    /// The reasoning level after clamping to what the model supports; `None` = off.
    pub(crate) reasoning: Option<ModelThinkingLevel>,
    pub(crate) cache_retention: CacheRetention,
    /// `sessionId` unless caching is off.
    pub(crate) cache_session_id: Option<String>,
}

impl RequestSetup {
    pub(crate) fn new(model: &Model, context: &Context, options: &SimpleStreamOptions) -> Self {
        let requested = options.base.max_tokens.unwrap_or(model.max_tokens);
        let max_tokens = crate::clamp_max_tokens(model, context, requested);
        let reasoning = options
            .reasoning
            .map(|level| crate::clamp_thinking_level(model, level))
            .filter(|level| *level != ModelThinkingLevel::Off);
        let env_long = options
            .base
            .env
            .as_ref()
            .and_then(|env| env.get("PI_CACHE_RETENTION").cloned())
            .or_else(|| std::env::var("PI_CACHE_RETENTION").ok())
            .is_some_and(|v| v == "long");
        let cache_retention = options.base.cache_retention.unwrap_or(if env_long {
            CacheRetention::Long
        } else {
            CacheRetention::Short
        });
        let cache_session_id = if cache_retention == CacheRetention::None {
            None
        } else {
            options.base.session_id.clone()
        };
        Self {
            max_tokens,
            reasoning,
            cache_retention,
            cache_session_id,
        }
    }
}

/// pi replaces lone UTF-16 surrogates; a Rust `str` cannot hold them, so text passes unchanged.
pub(crate) fn sanitize(text: &str) -> String {
    text.to_string()
}

/// `prompt_cache_key` is limited to 64 characters.
pub(crate) fn clamp_prompt_cache_key(key: &str) -> String {
    key.chars().take(64).collect()
}

/// A short stable hash (FNV-1a, 8 hex digits) for shortening ids.
pub(crate) fn short_hash(text: &str) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for byte in text.bytes() {
        hash ^= u32::from(byte);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    format!("{hash:08x}")
}

/// Whether a tool asks for strict JSON-schema sampling (`constrainedSampling: {type: "json_schema"}`).
pub(crate) fn strict_sampling(tool: &Tool, supported: bool) -> bool {
    supported
        && tool.constrained_sampling.as_ref().is_some_and(|c| {
            c.get("type").and_then(Value::as_str) == Some("json_schema")
                && matches!(
                    c.get("strict").and_then(Value::as_str),
                    Some("require" | "prefer")
                )
        })
}

/// `model.samplingParams` overlaid with the request's.
pub(crate) fn merged_sampling_params(
    model: &Model,
    options: &SimpleStreamOptions,
) -> Map<String, Value> {
    let mut merged = model.sampling_params.clone().unwrap_or_default();
    if let Some(extra) = &options.base.sampling_params {
        for (k, v) in extra {
            merged.insert(k.clone(), v.clone());
        }
    }
    merged
}

/// A string compat setting (`value` is the setting's entry in `model.compat`) as `T`, by its JSON name. A
/// string outside pi's set gives `other`: what pi's `===` comparisons make of it. `None` when the setting is
/// absent or not a string, so the detected value stays.
pub(crate) fn compat_choice<T: DeserializeOwned>(value: Option<&Value>, other: T) -> Option<T> {
    let text = value?.as_str()?;
    Some(serde_json::from_value(Value::String(text.to_string())).unwrap_or(other))
}

/// Which headers carry the session id (pi's `SessionAffinityFormat`, compat `sessionAffinityFormat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub(crate) enum SessionAffinityFormat {
    /// OpenAI's, `session_id` among them.
    #[serde(rename = "openai")]
    OpenAi,
    /// OpenAI's without `session_id`.
    #[serde(rename = "openai-nosession")]
    NoSession,
    /// OpenRouter's `x-session-id` alone.
    #[serde(rename = "openrouter")]
    OpenRouter,
}

impl SessionAffinityFormat {
    /// pi's `detectSessionAffinityFormat`: OpenRouter by provider id or base URL, else OpenAI.
    pub(crate) fn detect(model: &Model) -> Self {
        if model.provider == "openrouter" || model.base_url.contains("openrouter.ai") {
            Self::OpenRouter
        } else {
            Self::OpenAi
        }
    }

    /// The `sessionAffinityFormat` override; another string is neither `openai` nor `openrouter` to pi.
    pub(crate) fn from_compat(value: Option<&Value>) -> Option<Self> {
        compat_choice(value, Self::NoSession)
    }

    /// The headers that carry `session`: `x-session-id` for OpenRouter, else `x-client-request-id` after
    /// `session_id` (`openai` only).
    pub(crate) fn headers(self, session: &str) -> Vec<(String, String)> {
        match self {
            Self::OpenRouter => vec![("x-session-id".into(), session.into())],
            Self::OpenAi => vec![
                ("session_id".into(), session.into()),
                ("x-client-request-id".into(), session.into()),
            ],
            Self::NoSession => vec![("x-client-request-id".into(), session.into())],
        }
    }
}

/// A boolean compat setting of the model, `default` when absent or not a boolean.
pub(crate) fn compat_flag(model: &Model, key: &str, default: bool) -> bool {
    model
        .compat
        .as_ref()
        .and_then(|c| c.get(key))
        .and_then(Value::as_bool)
        .unwrap_or(default)
}

/// The text blocks' text, one line break between blocks (images left out).
pub(crate) fn joined_text(blocks: &[UserBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            UserBlock::Text(t) => Some(t.text.to_string()),
            UserBlock::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
