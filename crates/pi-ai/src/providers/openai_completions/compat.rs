//! The compatibility switches of `openai-completions` (pi's `OpenAICompletionsCompat`): detected from the
//! provider id and base URL, then overridden by the model's `compat` entries.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::model::Model;
use crate::providers::common::{SessionAffinityFormat, compat_choice};

/// Where the reasoning level goes in the request (compat `thinkingFormat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub(crate) enum ThinkingFormat {
    /// `reasoning_effort`; pi's fallback for a value outside this set too.
    #[serde(rename = "openai")]
    OpenAi,
    /// `reasoning: {effort}`.
    #[serde(rename = "openrouter")]
    OpenRouter,
    /// `thinking: {type}` and `reasoning_effort`.
    #[serde(rename = "deepseek")]
    DeepSeek,
    /// `thinking: {type, clear_thinking}` and `reasoning_effort`.
    #[serde(rename = "zai")]
    Zai,
    /// `enable_thinking` and `reasoning_effort`.
    #[serde(rename = "qwen")]
    Qwen,
    /// `chat_template_kwargs: {enable_thinking, preserve_thinking}`.
    #[serde(rename = "qwen-chat-template")]
    QwenChatTemplate,
    /// `reasoning: {enabled}` and `reasoning_effort`.
    #[serde(rename = "together")]
    Together,
    /// `reasoning: {effort}`, only for a level the model's map names.
    #[serde(rename = "ant-ling")]
    AntLing,
}

/// The body field that carries max tokens (compat `maxTokensField`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub(crate) enum MaxTokensField {
    /// pi's fallback for a value outside this set too.
    #[serde(rename = "max_completion_tokens")]
    MaxCompletionTokens,
    #[serde(rename = "max_tokens")]
    MaxTokens,
}

impl MaxTokensField {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::MaxCompletionTokens => "max_completion_tokens",
            Self::MaxTokens => "max_tokens",
        }
    }
}

/// How prompt-cache breakpoints are marked (compat `cacheControlFormat`); another value marks none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub(crate) enum CacheControlFormat {
    /// Anthropic's `cache_control` on the system prompt, the last tool and the last text.
    #[serde(rename = "anthropic")]
    Anthropic,
}

/// Compatibility switches (pi's `OpenAICompletionsCompat`).
#[derive(Debug, Clone)]
pub(crate) struct Compat {
    pub(crate) supports_store: bool,
    pub(crate) supports_developer_role: bool,
    pub(crate) supports_reasoning_effort: bool,
    pub(crate) supports_usage_in_streaming: bool,
    pub(crate) supports_finish_reason: bool,
    pub(crate) max_tokens_field: MaxTokensField,
    pub(crate) requires_tool_result_name: bool,
    pub(crate) requires_assistant_after_tool_result: bool,
    pub(crate) requires_thinking_as_text: bool,
    pub(crate) requires_reasoning_content_on_assistant_messages: bool,
    pub(crate) thinking_format: ThinkingFormat,
    pub(crate) supports_strict_mode: bool,
    pub(crate) cache_control_format: Option<CacheControlFormat>,
    pub(crate) send_session_affinity_headers: bool,
    pub(crate) session_affinity_format: SessionAffinityFormat,
    pub(crate) supports_long_cache_retention: bool,
    pub(crate) open_router_routing: Option<Value>,
}

impl Compat {
    pub(crate) fn for_model(model: &Model) -> Self {
        let provider = model.provider.as_str();
        let url = model.base_url.as_str();
        let is_zai = provider == "zai"
            || provider == "zai-coding-cn"
            || url.contains("api.z.ai")
            || url.contains("open.bigmodel.cn");
        let is_together = provider == "together"
            || url.contains("api.together.ai")
            || url.contains("api.together.xyz");
        let is_moonshot = provider == "moonshotai"
            || provider == "moonshotai-cn"
            || url.contains("api.moonshot.");
        let is_open_router = provider == "openrouter" || url.contains("openrouter.ai");
        let is_cf_workers =
            provider == "cloudflare-workers-ai" || url.contains("api.cloudflare.com");
        let is_cf_gateway =
            provider == "cloudflare-ai-gateway" || url.contains("gateway.ai.cloudflare.com");
        let is_nvidia = provider == "nvidia" || url.contains("integrate.api.nvidia.com");
        let is_ant_ling = provider == "ant-ling" || url.contains("api.ant-ling.com");
        let is_deepseek = provider == "deepseek" || url.to_lowercase().contains("deepseek.com");
        let is_grok = provider == "xai" || url.contains("api.x.ai");
        let is_non_standard = is_nvidia
            || provider == "cerebras"
            || url.contains("cerebras.ai")
            || is_grok
            || is_together
            || url.contains("chutes.ai")
            || is_deepseek
            || is_zai
            || is_moonshot
            || provider == "opencode"
            || url.contains("opencode.ai")
            || is_cf_workers
            || is_cf_gateway
            || is_ant_ling;
        let use_max_tokens = url.contains("chutes.ai")
            || is_deepseek
            || is_moonshot
            || is_cf_gateway
            || is_together
            || is_nvidia
            || is_ant_ling
            || is_zai;
        let open_router_developer = is_open_router
            && (model.id.starts_with("anthropic/") || model.id.starts_with("openai/"));
        let thinking_format = if is_deepseek {
            ThinkingFormat::DeepSeek
        } else if is_zai {
            ThinkingFormat::Zai
        } else if is_together {
            ThinkingFormat::Together
        } else if is_ant_ling {
            ThinkingFormat::AntLing
        } else if is_open_router {
            ThinkingFormat::OpenRouter
        } else {
            ThinkingFormat::OpenAi
        };
        let mut compat = Self {
            supports_store: !is_non_standard,
            supports_developer_role: open_router_developer || (!is_non_standard && !is_open_router),
            supports_reasoning_effort: !is_grok
                && !is_zai
                && !is_moonshot
                && !is_together
                && !is_cf_gateway
                && !is_nvidia
                && !is_ant_ling,
            supports_usage_in_streaming: true,
            supports_finish_reason: true,
            max_tokens_field: if use_max_tokens {
                MaxTokensField::MaxTokens
            } else {
                MaxTokensField::MaxCompletionTokens
            },
            requires_tool_result_name: false,
            requires_assistant_after_tool_result: false,
            requires_thinking_as_text: false,
            requires_reasoning_content_on_assistant_messages: is_deepseek,
            thinking_format,
            supports_strict_mode: !is_moonshot && !is_together && !is_cf_gateway && !is_nvidia,
            cache_control_format: (provider == "openrouter" && model.id.starts_with("anthropic/"))
                .then_some(CacheControlFormat::Anthropic),
            send_session_affinity_headers: false,
            session_affinity_format: SessionAffinityFormat::detect(model),
            supports_long_cache_retention: !(is_together
                || is_cf_workers
                || is_cf_gateway
                || is_nvidia
                || is_ant_ling),
            open_router_routing: None,
        };
        if let Some(overrides) = model.compat.as_ref().and_then(Value::as_object) {
            compat.apply(overrides);
        }
        compat
    }

    fn apply(&mut self, o: &Map<String, Value>) {
        let flag = |key: &str, slot: &mut bool| {
            if let Some(v) = o.get(key).and_then(Value::as_bool) {
                *slot = v;
            }
        };
        flag("supportsStore", &mut self.supports_store);
        flag("supportsDeveloperRole", &mut self.supports_developer_role);
        flag(
            "supportsReasoningEffort",
            &mut self.supports_reasoning_effort,
        );
        flag(
            "supportsUsageInStreaming",
            &mut self.supports_usage_in_streaming,
        );
        flag("supportsFinishReason", &mut self.supports_finish_reason);
        flag(
            "requiresToolResultName",
            &mut self.requires_tool_result_name,
        );
        flag(
            "requiresAssistantAfterToolResult",
            &mut self.requires_assistant_after_tool_result,
        );
        flag(
            "requiresThinkingAsText",
            &mut self.requires_thinking_as_text,
        );
        flag(
            "requiresReasoningContentOnAssistantMessages",
            &mut self.requires_reasoning_content_on_assistant_messages,
        );
        flag("supportsStrictMode", &mut self.supports_strict_mode);
        flag(
            "sendSessionAffinityHeaders",
            &mut self.send_session_affinity_headers,
        );
        flag(
            "supportsLongCacheRetention",
            &mut self.supports_long_cache_retention,
        );
        if let Some(v) = compat_choice(o.get("maxTokensField"), MaxTokensField::MaxCompletionTokens)
        {
            self.max_tokens_field = v;
        }
        if let Some(v) = compat_choice(o.get("thinkingFormat"), ThinkingFormat::OpenAi) {
            self.thinking_format = v;
        }
        if let Some(v) = compat_choice(o.get("cacheControlFormat"), None) {
            self.cache_control_format = v;
        }
        if let Some(v) = SessionAffinityFormat::from_compat(o.get("sessionAffinityFormat")) {
            self.session_affinity_format = v;
        }
        if let Some(v) = o
            .get("openRouterRouting")
            .filter(|v| v.as_object().is_some_and(|m| !m.is_empty()))
        {
            self.open_router_routing = Some(v.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn model(provider: &str, compat: Value) -> Model {
        let mut model = Model::unknown();
        model.provider = provider.into();
        model.compat = Some(compat);
        model
    }

    fn string_settings(
        compat: &Compat,
    ) -> (ThinkingFormat, MaxTokensField, Option<CacheControlFormat>) {
        (
            compat.thinking_format,
            compat.max_tokens_field,
            compat.cache_control_format,
        )
    }

    #[test]
    fn string_settings_take_pis_names_and_fallbacks() {
        let named = Compat::for_model(&model(
            "deepseek",
            json!({"thinkingFormat": "qwen-chat-template", "maxTokensField": "max_completion_tokens",
                "cacheControlFormat": "anthropic", "sessionAffinityFormat": "openai-nosession"}),
        ));
        assert_eq!(
            string_settings(&named),
            (
                ThinkingFormat::QwenChatTemplate,
                MaxTokensField::MaxCompletionTokens,
                Some(CacheControlFormat::Anthropic)
            )
        );
        assert_eq!(
            named.session_affinity_format,
            SessionAffinityFormat::NoSession
        );

        // What pi's `===` comparisons make of values outside its sets.
        let unknown = Compat::for_model(&model(
            "deepseek",
            json!({"thinkingFormat": "x", "maxTokensField": "x", "cacheControlFormat": "x",
                "sessionAffinityFormat": "x"}),
        ));
        assert_eq!(
            string_settings(&unknown),
            (
                ThinkingFormat::OpenAi,
                MaxTokensField::MaxCompletionTokens,
                None
            )
        );
        assert_eq!(
            unknown.session_affinity_format,
            SessionAffinityFormat::NoSession
        );

        // A value that is not a string leaves the detected setting.
        let detected = Compat::for_model(&model("deepseek", json!({"thinkingFormat": 1})));
        assert_eq!(
            string_settings(&detected),
            (ThinkingFormat::DeepSeek, MaxTokensField::MaxTokens, None)
        );
    }
}
