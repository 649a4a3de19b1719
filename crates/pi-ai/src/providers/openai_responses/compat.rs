//! The compatibility settings `openai-responses` reads from the model's `compat` (pi's
//! `OpenAIResponsesCompat`), with pi's defaults.

use crate::model::Model;
use crate::providers::common::{SessionAffinityFormat, compat_flag};

#[derive(Debug, Clone)]
pub(crate) struct Compat {
    /// The system prompt of a reasoning model goes as `developer`.
    pub(crate) supports_developer_role: bool,
    /// `prompt_cache_options` instead of `prompt_cache_retention`.
    pub(crate) supports_explicit_prompt_cache_mode: bool,
    pub(crate) supports_long_cache_retention: bool,
    pub(crate) supports_max_output_tokens: bool,
    pub(crate) supports_strict_mode: bool,
    pub(crate) session_affinity_format: SessionAffinityFormat,
}

impl Compat {
    pub(crate) fn for_model(model: &Model) -> Self {
        let flag = |key: &str, default: bool| compat_flag(model, key, default);
        Self {
            supports_developer_role: flag("supportsDeveloperRole", true),
            supports_explicit_prompt_cache_mode: flag("supportsExplicitPromptCacheMode", false),
            supports_long_cache_retention: flag("supportsLongCacheRetention", true),
            supports_max_output_tokens: flag("supportsMaxOutputTokens", true),
            supports_strict_mode: flag("supportsStrictMode", false),
            session_affinity_format: SessionAffinityFormat::from_compat(
                model
                    .compat
                    .as_ref()
                    .and_then(|c| c.get("sessionAffinityFormat")),
            )
            .unwrap_or_else(|| SessionAffinityFormat::detect(model)),
        }
    }
}
