//! The `anthropic-messages` request: the body as pi builds it (system prompt as a cached text block,
//! `cache_control` on the last user block and the last tool, `eager_input_streaming` tools, budget thinking or
//! adaptive thinking with `output_config.effort`) and the beta features it needs.

use serde_json::{Map, Value, json};

use super::compat::Compat;
use super::messages::{convert_messages, normalize_tool_call_id};
use crate::context::Tool;
use crate::model::{Model, ModelThinkingLevel, ThinkingLevel};
use crate::options::CacheRetention;
use crate::providers::common;
use crate::providers::exchange::{Call, Request};
use crate::tool_choice::{ToolChoiceApi, UnsupportedToolChoice};

const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";
const FINE_GRAINED_TOOL_STREAMING_BETA: &str = "fine-grained-tool-streaming-2025-05-14";

/// How thinking is requested.
#[derive(Debug, Clone, PartialEq)]
enum Thinking {
    Disabled,
    Budget(u64),
    Adaptive(String),
}

/// Effort for adaptive thinking: the model's map, else minimal/low→low, medium→medium, others→high.
fn adaptive_effort(model: &Model, level: ThinkingLevel) -> String {
    if let Some(mapped) = crate::mapped_thinking_level(model, ModelThinkingLevel::from(level)) {
        return mapped.to_string();
    }
    match level {
        ThinkingLevel::Minimal | ThinkingLevel::Low => "low",
        ThinkingLevel::Medium => "medium",
        _ => "high",
    }
    .into()
}

fn convert_tools(tools: &[Tool], eager: bool, cache_control: Option<&Value>) -> Vec<Value> {
    let count = tools.len();
    tools
        .iter()
        .enumerate()
        .map(|(index, tool)| {
            let mut out = Map::new();
            out.insert("name".into(), json!(tool.name));
            out.insert("description".into(), json!(tool.description));
            if eager {
                out.insert("eager_input_streaming".into(), json!(true));
            }
            let properties = tool
                .parameters
                .get("properties")
                .cloned()
                .unwrap_or_else(|| json!({}));
            let required = tool
                .parameters
                .get("required")
                .cloned()
                .unwrap_or_else(|| json!([]));
            out.insert(
                "input_schema".into(),
                json!({"type": "object", "properties": properties, "required": required}),
            );
            if let (Some(cc), true) = (cache_control, index + 1 == count) {
                out.insert("cache_control".into(), cc.clone());
            }
            Value::Object(out)
        })
        .collect()
}

/// The request: the body, the session-affinity header when the compat asks for it, and the beta features
/// (the configured `anthropic-beta` values are already among them, so they replace the header).
pub(super) fn build(call: &Call<'_, Compat>) -> Result<Request, UnsupportedToolChoice> {
    let (body, betas) = build_request(call)?;
    let headers = call
        .setup
        .cache_session_id
        .iter()
        .filter(|_| call.compat.send_session_affinity_headers)
        .map(|session| ("x-session-affinity".to_string(), session.clone()))
        .collect();
    Ok(Request {
        body,
        headers,
        computed_headers: vec![(
            "anthropic-beta",
            (!betas.is_empty()).then(|| betas.join(",")),
        )],
    })
}

/// The request body and the beta features (sent as the `anthropic-beta` header).
fn build_request(call: &Call<'_, Compat>) -> Result<(Value, Vec<String>), UnsupportedToolChoice> {
    let Call { model, options, .. } = *call;
    let (context, compat, setup) = (call.context, call.compat, call.setup);
    let adaptive = compat.force_adaptive_thinking;
    let (max_tokens, thinking) = match options.reasoning {
        None => (setup.max_tokens, Thinking::Disabled),
        Some(level) if adaptive => (
            setup.max_tokens,
            Thinking::Adaptive(adaptive_effort(model, level)),
        ),
        Some(level) => {
            let (max, budget) = crate::thinking_max_tokens(
                model,
                Some(setup.max_tokens),
                level,
                options.thinking_budgets.as_ref(),
            );
            let max = crate::clamp_max_tokens(model, context, max);
            (max, Thinking::Budget(budget.min(max.saturating_sub(1024))))
        }
    };
    let cache_control = match setup.cache_retention {
        CacheRetention::None => None,
        CacheRetention::Long if compat.supports_long_cache_retention => {
            Some(json!({"type": "ephemeral", "ttl": "1h"}))
        }
        _ => Some(json!({"type": "ephemeral"})),
    };
    let messages = crate::transform_messages(&context.messages, model, normalize_tool_call_id);
    let converted = convert_messages(
        &messages,
        cache_control.as_ref(),
        compat.allow_empty_signature,
    );
    let eager = compat.supports_eager_tool_input_streaming;
    let tools = context.tools.as_deref().unwrap_or_default();

    let mut betas: Vec<String> = Vec::new();
    let configured = model
        .headers
        .iter()
        .flatten()
        .filter(|(k, _)| k.eq_ignore_ascii_case("anthropic-beta"))
        .map(|(_, v)| Some(v.clone()))
        .chain(
            options
                .base
                .headers
                .iter()
                .flatten()
                .filter(|(k, _)| k.eq_ignore_ascii_case("anthropic-beta"))
                .map(|(_, v)| v.clone()),
        )
        .last();
    match configured {
        Some(None) => {}
        Some(Some(list)) => {
            for feature in list.split(',').map(str::trim).filter(|f| !f.is_empty()) {
                if !betas.iter().any(|b| b == feature) {
                    betas.push(feature.to_string());
                }
            }
        }
        None => {
            if !tools.is_empty() && !eager {
                betas.push(FINE_GRAINED_TOOL_STREAMING_BETA.into());
            }
            if model.reasoning && options.reasoning.is_some() && !adaptive {
                betas.push(INTERLEAVED_THINKING_BETA.into());
            }
        }
    }

    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert("messages".into(), Value::Array(converted));
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("stream".into(), json!(true));
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        let mut block = json!({"type": "text", "text": common::sanitize(system)});
        if let (Some(cc), Some(obj)) = (&cache_control, block.as_object_mut()) {
            obj.insert("cache_control".into(), cc.clone());
        }
        body.insert("system".into(), json!([block]));
    }
    if let Some(t) = options.base.temperature {
        if thinking == Thinking::Disabled && compat.supports_temperature {
            body.insert("temperature".into(), json!(t));
        }
    }
    if !tools.is_empty() {
        let cc = cache_control
            .as_ref()
            .filter(|_| compat.supports_cache_control_on_tools);
        body.insert(
            "tools".into(),
            Value::Array(convert_tools(tools, eager, cc)),
        );
    }
    if model.reasoning {
        match &thinking {
            Thinking::Budget(budget) => {
                let budget = if *budget == 0 { 1024 } else { *budget };
                body.insert(
                    "thinking".into(),
                    json!({"type": "enabled", "budget_tokens": budget, "display": "summarized"}),
                );
            }
            Thinking::Adaptive(effort) => {
                body.insert(
                    "thinking".into(),
                    json!({"type": "adaptive", "display": "summarized"}),
                );
                body.insert("output_config".into(), json!({"effort": effort}));
            }
            Thinking::Disabled => {
                let off_unsupported = model
                    .thinking_level_map
                    .as_ref()
                    .is_some_and(|m| m.get(&ModelThinkingLevel::Off) == Some(&None));
                if !off_unsupported {
                    body.insert("thinking".into(), json!({"type": "disabled"}));
                }
            }
        }
    }
    if let Some(user_id) = options
        .base
        .metadata
        .as_ref()
        .and_then(|m| m.get("user_id"))
        .and_then(Value::as_str)
    {
        body.insert("metadata".into(), json!({"user_id": user_id}));
    }
    if let Some(choice) = &options.tool_choice {
        body.insert(
            "tool_choice".into(),
            choice.to_request(ToolChoiceApi::AnthropicMessages)?,
        );
    }
    Ok((Value::Object(body), betas))
}
