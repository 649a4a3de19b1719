//! The compatibility settings `anthropic-messages` reads from the model's `compat` (pi's
//! `AnthropicMessagesCompat`), with pi's defaults.

use crate::model::Model;
use crate::providers::common::compat_flag;

#[derive(Debug, Clone)]
pub(crate) struct Compat {
    /// Adaptive thinking with `output_config.effort` instead of a token budget.
    pub(crate) force_adaptive_thinking: bool,
    pub(crate) supports_long_cache_retention: bool,
    /// Unsigned thinking is replayed as thinking with an empty signature rather than as text.
    pub(crate) allow_empty_signature: bool,
    pub(crate) supports_eager_tool_input_streaming: bool,
    pub(crate) supports_temperature: bool,
    pub(crate) supports_cache_control_on_tools: bool,
    pub(crate) send_session_affinity_headers: bool,
}

impl Compat {
    pub(crate) fn for_model(model: &Model) -> Self {
        let flag = |key: &str, default: bool| compat_flag(model, key, default);
        Self {
            force_adaptive_thinking: flag("forceAdaptiveThinking", false),
            supports_long_cache_retention: flag("supportsLongCacheRetention", true),
            allow_empty_signature: flag("allowEmptySignature", false),
            supports_eager_tool_input_streaming: flag("supportsEagerToolInputStreaming", true),
            supports_temperature: flag("supportsTemperature", true),
            supports_cache_control_on_tools: flag("supportsCacheControlOnTools", true),
            send_session_affinity_headers: flag("sendSessionAffinityHeaders", false),
        }
    }
}
