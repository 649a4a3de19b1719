//! Models and the names that select them: [`Api`], [`Model`], cost rates and thinking levels (spec 1.1).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::js_number::serialize_js_f64;

/// An open string naming a wire protocol; selects the [`crate::ApiProvider`] that serves a model.
///
/// Known values are associated constants; any other string is allowed (custom APIs, `scripted`, `faux:…`).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Api(Cow<'static, str>);

impl Api {
    /// OpenAI Chat Completions (and compatibles).
    pub const OPENAI_COMPLETIONS: Api = Api::from_static("openai-completions");
    /// Mistral conversations.
    pub const MISTRAL_CONVERSATIONS: Api = Api::from_static("mistral-conversations");
    /// OpenAI Responses.
    pub const OPENAI_RESPONSES: Api = Api::from_static("openai-responses");
    /// OpenAI Responses on Azure.
    pub const AZURE_OPENAI_RESPONSES: Api = Api::from_static("azure-openai-responses");
    /// Codex Responses.
    pub const OPENAI_CODEX_RESPONSES: Api = Api::from_static("openai-codex-responses");
    /// Anthropic Messages.
    pub const ANTHROPIC_MESSAGES: Api = Api::from_static("anthropic-messages");
    /// AWS Bedrock ConverseStream.
    pub const BEDROCK_CONVERSE_STREAM: Api = Api::from_static("bedrock-converse-stream");
    /// Gemini API.
    pub const GOOGLE_GENERATIVE_AI: Api = Api::from_static("google-generative-ai");
    /// Vertex Gemini.
    pub const GOOGLE_VERTEX: Api = Api::from_static("google-vertex");
    /// Pi's own backend protocol.
    pub const PI_MESSAGES: Api = Api::from_static("pi-messages");
    /// The conformance harness's scripted stream (and our [`crate::scripted`] provider).
    pub const SCRIPTED: Api = Api::from_static("scripted");

    /// An api name known at compile time.
    pub const fn from_static(name: &'static str) -> Self {
        Self(Cow::Borrowed(name))
    }

    /// Any api name.
    pub fn new(name: impl Into<String>) -> Self {
        Self(Cow::Owned(name.into()))
    }

    /// The wire name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<&str> for Api {
    fn from(name: &str) -> Self {
        Self::new(name)
    }
}

impl From<String> for Api {
    fn from(name: String) -> Self {
        Self::new(name)
    }
}

impl PartialEq<str> for Api {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Api {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// A reasoning effort level requested from a model (pi-ai's `ThinkingLevel`; "no reasoning" is `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThinkingLevel {
    /// Smallest effort.
    Minimal,
    /// Low effort.
    Low,
    /// Medium effort.
    Medium,
    /// High effort.
    High,
    /// Extra high; supported only when a model maps it explicitly.
    Xhigh,
    /// Maximum; supported only when a model maps it explicitly.
    Max,
}

impl ThinkingLevel {
    /// Every level, lowest first.
    pub const ALL: [ThinkingLevel; 6] = [
        ThinkingLevel::Minimal,
        ThinkingLevel::Low,
        ThinkingLevel::Medium,
        ThinkingLevel::High,
        ThinkingLevel::Xhigh,
        ThinkingLevel::Max,
    ];

    /// The wire name (`"minimal"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingLevel::Minimal => "minimal",
            ThinkingLevel::Low => "low",
            ThinkingLevel::Medium => "medium",
            ThinkingLevel::High => "high",
            ThinkingLevel::Xhigh => "xhigh",
            ThinkingLevel::Max => "max",
        }
    }
}

/// A thinking level including `off` (pi-ai's `ModelThinkingLevel`, and the agent's thinking level).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum ModelThinkingLevel {
    /// No reasoning.
    #[default]
    Off,
    /// Smallest effort.
    Minimal,
    /// Low effort.
    Low,
    /// Medium effort.
    Medium,
    /// High effort.
    High,
    /// Extra high.
    Xhigh,
    /// Maximum.
    Max,
}

impl ModelThinkingLevel {
    /// Every level, `off` first.
    pub const ALL: [ModelThinkingLevel; 7] = [
        ModelThinkingLevel::Off,
        ModelThinkingLevel::Minimal,
        ModelThinkingLevel::Low,
        ModelThinkingLevel::Medium,
        ModelThinkingLevel::High,
        ModelThinkingLevel::Xhigh,
        ModelThinkingLevel::Max,
    ];

    /// The reasoning level, `None` for `off`.
    pub fn reasoning(self) -> Option<ThinkingLevel> {
        match self {
            ModelThinkingLevel::Off => None,
            ModelThinkingLevel::Minimal => Some(ThinkingLevel::Minimal),
            ModelThinkingLevel::Low => Some(ThinkingLevel::Low),
            ModelThinkingLevel::Medium => Some(ThinkingLevel::Medium),
            ModelThinkingLevel::High => Some(ThinkingLevel::High),
            ModelThinkingLevel::Xhigh => Some(ThinkingLevel::Xhigh),
            ModelThinkingLevel::Max => Some(ThinkingLevel::Max),
        }
    }

    /// The wire name (`"off"`, `"minimal"`, …).
    pub fn as_str(self) -> &'static str {
        self.reasoning().map_or("off", ThinkingLevel::as_str)
    }
}

impl From<ThinkingLevel> for ModelThinkingLevel {
    fn from(level: ThinkingLevel) -> Self {
        match level {
            ThinkingLevel::Minimal => ModelThinkingLevel::Minimal,
            ThinkingLevel::Low => ModelThinkingLevel::Low,
            ThinkingLevel::Medium => ModelThinkingLevel::Medium,
            ThinkingLevel::High => ModelThinkingLevel::High,
            ThinkingLevel::Xhigh => ModelThinkingLevel::Xhigh,
            ThinkingLevel::Max => ModelThinkingLevel::Max,
        }
    }
}

impl From<Option<ThinkingLevel>> for ModelThinkingLevel {
    fn from(level: Option<ThinkingLevel>) -> Self {
        level.map_or(ModelThinkingLevel::Off, ModelThinkingLevel::from)
    }
}

/// Optional token budgets per thinking level for token-budget APIs (spec 4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ThinkingBudgets {
    /// Budget for `minimal` (default 1024).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimal: Option<u64>,
    /// Budget for `low` (default 2048).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub low: Option<u64>,
    /// Budget for `medium` (default 8192).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub medium: Option<u64>,
    /// Budget for `high`, also used by `xhigh` and `max` (default 16384).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high: Option<u64>,
}

/// An input modality a model accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InputModality {
    /// Text input.
    Text,
    /// Image input.
    Image,
}

/// Prices in dollars per million tokens.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCost {
    /// Input tokens.
    #[serde(serialize_with = "serialize_js_f64")]
    pub input: f64,
    /// Output tokens.
    #[serde(serialize_with = "serialize_js_f64")]
    pub output: f64,
    /// Cache reads.
    #[serde(serialize_with = "serialize_js_f64")]
    pub cache_read: f64,
    /// Cache writes.
    #[serde(serialize_with = "serialize_js_f64")]
    pub cache_write: f64,
    /// Request-wide pricing tiers; the tier with the highest threshold below the request's input wins (spec 4.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiers: Option<Vec<CostTier>>,
}

/// Rates that apply when a request's input tokens (input + cacheRead + cacheWrite) exceed `input_tokens_above`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CostTier {
    /// Threshold in tokens (exclusive).
    pub input_tokens_above: u64,
    /// Input tokens.
    #[serde(serialize_with = "serialize_js_f64")]
    pub input: f64,
    /// Output tokens.
    #[serde(serialize_with = "serialize_js_f64")]
    pub output: f64,
    /// Cache reads.
    #[serde(serialize_with = "serialize_js_f64")]
    pub cache_read: f64,
    /// Cache writes.
    #[serde(serialize_with = "serialize_js_f64")]
    pub cache_write: f64,
}

/// A model: which provider serves it, over which [`Api`], with which limits and prices (spec 1.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    /// Provider model id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Selects the protocol implementation.
    pub api: Api,
    /// Owning provider id; used for auth.
    pub provider: String,
    /// Endpoint base; may be overridden by resolved auth.
    pub base_url: String,
    /// The model supports thinking.
    pub reasoning: bool,
    /// Provider value per level; `None` (JSON `null`) = unsupported; `xhigh`/`max` supported only if present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_level_map: Option<BTreeMap<ModelThinkingLevel, Option<String>>>,
    /// Accepted modalities.
    pub input: Vec<InputModality>,
    /// Prices.
    pub cost: ModelCost,
    /// Context window in tokens.
    pub context_window: u64,
    /// Output cap in tokens.
    pub max_tokens: u64,
    /// Default extra sampling parameters (OpenAI-compatible adapters); request values override per key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling_params: Option<Map<String, Value>>,
    /// Static model headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    /// API-specific compatibility switches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<Value>,
}

impl Model {
    /// True when the model accepts image input.
    pub fn supports_images(&self) -> bool {
        self.input.contains(&InputModality::Image)
    }

    /// The agent's placeholder model when none was set: id/name/api/provider "unknown", everything else empty
    /// (spec 1.9, scenario `default_model_when_unset`).
    pub fn unknown() -> Self {
        Self {
            id: "unknown".into(),
            name: "unknown".into(),
            api: Api::new("unknown"),
            provider: "unknown".into(),
            base_url: String::new(),
            reasoning: false,
            thinking_level_map: None,
            input: Vec::new(),
            cost: ModelCost::default(),
            context_window: 0,
            max_tokens: 0,
            sampling_params: None,
            headers: None,
            compat: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Api, Model, ModelThinkingLevel};

    #[test]
    fn a_model_round_trips_with_its_thinking_map_and_compat() {
        let value = json!({
            "id": "gpt-x", "name": "GPT X", "api": "openai-responses", "provider": "openai",
            "baseUrl": "https://example.invalid/v1", "reasoning": true,
            "thinkingLevelMap": {"minimal": null, "high": "high", "xhigh": "xhigh"},
            "input": ["text", "image"],
            "cost": {"input": 1.25, "output": 10, "cacheRead": 0.125, "cacheWrite": 0},
            "contextWindow": 400000, "maxTokens": 128000,
            "compat": {"supportsDeveloperRole": true}
        });
        let model: Model = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(model.api, Api::OPENAI_RESPONSES);
        let map = model.thinking_level_map.as_ref().unwrap();
        assert_eq!(map.get(&ModelThinkingLevel::Minimal), Some(&None));
        assert_eq!(serde_json::to_value(&model).unwrap(), value);
    }

    #[test]
    fn the_placeholder_model_matches_pi() {
        let value = serde_json::to_value(Model::unknown()).unwrap();
        assert_eq!(
            value,
            json!({
                "id": "unknown", "name": "unknown", "api": "unknown", "provider": "unknown", "baseUrl": "",
                "reasoning": false, "input": [],
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                "contextWindow": 0, "maxTokens": 0
            })
        );
    }
}
