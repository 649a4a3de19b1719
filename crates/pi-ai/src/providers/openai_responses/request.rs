//! The `openai-responses` request: the body as pi builds it (`prompt_cache_key` from the session id, cache
//! retention, `max_output_tokens` at least 16, reasoning effort and summaries, tools) and the session-affinity
//! headers.

use serde_json::{Map, Value, json};

use super::compat::Compat;
use super::messages::convert_messages;
use crate::context::Tool;
use crate::model::ModelThinkingLevel;
use crate::options::CacheRetention;
use crate::providers::common;
use crate::providers::exchange::Call;
use crate::tool_choice::{ToolChoiceApi, UnsupportedToolChoice};

const MIN_OUTPUT_TOKENS: u64 = 16;

fn convert_tools(tools: &[Tool], supports_strict: bool) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| {
            let mut out = Map::new();
            out.insert("type".into(), json!("function"));
            out.insert("name".into(), json!(tool.name));
            out.insert("description".into(), json!(tool.description));
            out.insert("parameters".into(), tool.parameters.clone());
            if supports_strict {
                out.insert("strict".into(), json!(common::strict_sampling(tool, true)));
            }
            Value::Object(out)
        })
        .collect()
}

/// The request body, as pi builds it.
pub(super) fn build_body(call: &Call<'_, Compat>) -> Result<Value, UnsupportedToolChoice> {
    let Call { model, options, .. } = *call;
    let (context, compat, setup) = (call.context, call.compat, call.setup);
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert(
        "input".into(),
        Value::Array(convert_messages(model, context, compat)),
    );
    body.insert("stream".into(), json!(true));
    if setup.cache_retention != CacheRetention::None {
        if let Some(key) = options.base.session_id.as_deref() {
            body.insert(
                "prompt_cache_key".into(),
                json!(common::clamp_prompt_cache_key(key)),
            );
        }
    }
    let explicit_cache = compat.supports_explicit_prompt_cache_mode;
    let long_ok = compat.supports_long_cache_retention;
    if setup.cache_retention == CacheRetention::Long && long_ok && !explicit_cache {
        body.insert("prompt_cache_retention".into(), json!("24h"));
    }
    if explicit_cache {
        match setup.cache_retention {
            CacheRetention::None => {
                body.insert("prompt_cache_options".into(), json!({"mode": "explicit"}));
            }
            CacheRetention::Long if long_ok => {
                body.insert("prompt_cache_options".into(), json!({"ttl": "30m"}));
            }
            _ => {}
        }
    }
    body.insert("store".into(), json!(false));
    if setup.max_tokens > 0 && compat.supports_max_output_tokens {
        body.insert(
            "max_output_tokens".into(),
            json!(setup.max_tokens.max(MIN_OUTPUT_TOKENS)),
        );
    }
    if let Some(t) = options.base.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(tools) = context.tools.as_deref().filter(|t| !t.is_empty()) {
        body.insert(
            "tools".into(),
            Value::Array(convert_tools(tools, compat.supports_strict_mode)),
        );
    }
    if let Some(choice) = &options.tool_choice {
        body.insert(
            "tool_choice".into(),
            choice.to_request(ToolChoiceApi::OpenAiResponses)?,
        );
    }
    if model.reasoning {
        match setup.reasoning {
            Some(level) => {
                let effort = crate::mapped_thinking_level(model, level)
                    .unwrap_or(level.as_str())
                    .to_string();
                body.insert(
                    "reasoning".into(),
                    json!({"effort": effort, "summary": "auto"}),
                );
                body.insert("include".into(), json!(["reasoning.encrypted_content"]));
            }
            None => {
                let off_unsupported = model
                    .thinking_level_map
                    .as_ref()
                    .is_some_and(|m| m.get(&ModelThinkingLevel::Off) == Some(&None));
                if model.provider != "github-copilot" && !off_unsupported {
                    let off = crate::mapped_thinking_level(model, ModelThinkingLevel::Off)
                        .unwrap_or("none")
                        .to_string();
                    body.insert("reasoning".into(), json!({"effort": off}));
                }
            }
        }
        if model.provider == "xai" {
            body.insert("include".into(), json!(["reasoning.encrypted_content"]));
        }
    }
    for (k, v) in options.base.sampling_params.iter().flatten() {
        body.insert(k.clone(), v.clone());
    }
    Ok(Value::Object(body))
}

/// The session-affinity headers, when caching is on.
pub(super) fn session_headers(call: &Call<'_, Compat>) -> Vec<(String, String)> {
    let Call { compat, setup, .. } = *call;
    setup
        .cache_session_id
        .as_deref()
        .map(|session| compat.session_affinity_format.headers(session))
        .unwrap_or_default()
}
