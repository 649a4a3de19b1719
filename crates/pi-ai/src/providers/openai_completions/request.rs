//! The `openai-completions` request: the body exactly as pi builds it (reasoning in the compat's thinking
//! format, tools, Anthropic-style cache markers, prompt-cache key) and the session-affinity headers.

use serde_json::{Map, Value, json};

use super::compat::{CacheControlFormat, Compat, ThinkingFormat};
use super::messages::convert_messages;
use crate::content::AssistantBlock;
use crate::context::Tool;
use crate::message::Message;
use crate::model::{Model, ModelThinkingLevel};
use crate::options::CacheRetention;
use crate::providers::common::{self, SessionAffinityFormat};
use crate::providers::exchange::Call;
use crate::tool_choice::{ToolChoiceApi, UnsupportedToolChoice};

/// The provider value for a reasoning level: the model's `thinkingLevelMap` entry, else the level name.
/// `None` when the map says the level is unsupported (`null`).
fn mapped_level(model: &Model, level: ModelThinkingLevel) -> Option<Option<String>> {
    model
        .thinking_level_map
        .as_ref()
        .and_then(|map| map.get(&level).cloned())
}

fn effort_value(model: &Model, level: ModelThinkingLevel) -> Value {
    match mapped_level(model, level) {
        Some(Some(value)) => Value::String(value),
        Some(None) => Value::Null,
        None => Value::String(level.as_str().to_string()),
    }
}

fn convert_tools(tools: &[Tool], compat: &Compat) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| {
            let strict = common::strict_sampling(tool, compat.supports_strict_mode);
            let mut function = Map::new();
            function.insert("name".into(), json!(tool.name));
            function.insert("description".into(), json!(tool.description));
            function.insert("parameters".into(), tool.parameters.clone());
            if compat.supports_strict_mode {
                function.insert("strict".into(), json!(strict));
            }
            json!({"type": "function", "function": function})
        })
        .collect()
}

fn add_cache_control_to_text(message: &mut Value, cache_control: &Value) -> bool {
    let Some(obj) = message.as_object_mut() else {
        return false;
    };
    match obj.get_mut("content") {
        Some(Value::String(text)) => {
            if text.is_empty() {
                return false;
            }
            let block =
                json!([{"type": "text", "text": text.clone(), "cache_control": cache_control}]);
            obj.insert("content".into(), block);
            true
        }
        Some(Value::Array(parts)) => {
            for part in parts.iter_mut().rev() {
                if part.get("type").and_then(Value::as_str) == Some("text") {
                    if let Some(p) = part.as_object_mut() {
                        p.insert("cache_control".into(), cache_control.clone());
                    }
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}

fn apply_anthropic_cache_control(
    messages: &mut [Value],
    tools: Option<&mut Vec<Value>>,
    cache_control: &Value,
) {
    if let Some(first) = messages.iter_mut().find(|m| {
        matches!(
            m.get("role").and_then(Value::as_str),
            Some("system" | "developer")
        )
    }) {
        add_cache_control_to_text(first, cache_control);
    }
    if let Some(last) = tools
        .and_then(|t| t.last_mut())
        .and_then(Value::as_object_mut)
    {
        last.insert("cache_control".into(), cache_control.clone());
    }
    for message in messages.iter_mut().rev() {
        if matches!(
            message.get("role").and_then(Value::as_str),
            Some("user" | "assistant" | "tool")
        ) && add_cache_control_to_text(message, cache_control)
        {
            return;
        }
    }
}

fn has_tool_history(messages: &[Message]) -> bool {
    messages.iter().any(|m| match m {
        Message::ToolResult(_) => true,
        Message::Assistant(a) => a
            .content
            .iter()
            .any(|b| matches!(b.as_ref(), AssistantBlock::ToolCall(_))),
        Message::User(_) => false,
    })
}

/// The request body, exactly as pi builds it; `Err` for a tool choice this API cannot take.
pub(super) fn build_body(call: &Call<'_, Compat>) -> Result<Value, UnsupportedToolChoice> {
    let Call { model, options, .. } = *call;
    let (context, compat, setup) = (call.context, call.compat, call.setup);
    let cache_retention = setup.cache_retention;
    let mut messages = convert_messages(model, context, compat);
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert("stream".into(), json!(true));
    let long_cache =
        cache_retention == CacheRetention::Long && compat.supports_long_cache_retention;
    if (model.base_url.contains("api.openai.com") && cache_retention != CacheRetention::None)
        || long_cache
    {
        if let Some(key) = options.base.session_id.as_deref() {
            body.insert(
                "prompt_cache_key".into(),
                json!(common::clamp_prompt_cache_key(key)),
            );
        }
    }
    if long_cache {
        body.insert("prompt_cache_retention".into(), json!("24h"));
    }
    if compat.supports_usage_in_streaming {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if compat.supports_store {
        body.insert("store".into(), json!(false));
    }
    if setup.max_tokens > 0 {
        body.insert(
            compat.max_tokens_field.as_str().into(),
            json!(setup.max_tokens),
        );
    }
    if let Some(t) = options.base.temperature {
        body.insert("temperature".into(), json!(t));
    }
    let tools = context.tools.as_deref().filter(|t| !t.is_empty());
    let mut tool_list = match tools {
        Some(tools) => Some(convert_tools(tools, compat)),
        None if has_tool_history(&context.messages) => Some(Vec::new()),
        None => None,
    };
    if compat.cache_control_format == Some(CacheControlFormat::Anthropic)
        && cache_retention != CacheRetention::None
    {
        let cache_control = if long_cache {
            json!({"type": "ephemeral", "ttl": "1h"})
        } else {
            json!({"type": "ephemeral"})
        };
        apply_anthropic_cache_control(&mut messages, tool_list.as_mut(), &cache_control);
    }
    // Keep pi's key order: messages right after model.
    let mut ordered = Map::new();
    ordered.insert("model".into(), body.remove("model").unwrap_or(Value::Null));
    ordered.insert("messages".into(), Value::Array(messages));
    ordered.extend(body);
    let mut body = ordered;
    if let Some(list) = tool_list {
        body.insert("tools".into(), Value::Array(list));
    }
    if let Some(choice) = &options.tool_choice {
        body.insert(
            "tool_choice".into(),
            choice.to_request(ToolChoiceApi::OpenAiCompletions)?,
        );
    }
    if model.reasoning {
        insert_reasoning(&mut body, model, compat, setup.reasoning);
    }
    if let Some(routing) = &compat.open_router_routing {
        body.insert("provider".into(), routing.clone());
    }
    let sampling = common::merged_sampling_params(model, options);
    for (k, v) in sampling {
        body.insert(k, v);
    }
    Ok(Value::Object(body))
}

/// The reasoning parameters of the compat's thinking format for `effort` (`None` = thinking off).
fn insert_reasoning(
    body: &mut Map<String, Value>,
    model: &Model,
    compat: &Compat,
    effort: Option<ModelThinkingLevel>,
) {
    match compat.thinking_format {
        ThinkingFormat::Zai => {
            body.insert(
                "thinking".into(),
                if effort.is_some() {
                    json!({"type": "enabled", "clear_thinking": false})
                } else {
                    json!({"type": "disabled"})
                },
            );
            if let (Some(level), true) = (effort, compat.supports_reasoning_effort) {
                if let Value::String(v) = effort_value(model, level) {
                    body.insert("reasoning_effort".into(), json!(v));
                }
            }
        }
        ThinkingFormat::Qwen => {
            body.insert("enable_thinking".into(), json!(effort.is_some()));
            if let (Some(level), true) = (effort, compat.supports_reasoning_effort) {
                if let Value::String(v) = effort_value(model, level) {
                    body.insert("reasoning_effort".into(), json!(v));
                }
            }
        }
        ThinkingFormat::QwenChatTemplate => {
            body.insert(
                "chat_template_kwargs".into(),
                json!({"enable_thinking": effort.is_some(), "preserve_thinking": true}),
            );
        }
        ThinkingFormat::DeepSeek => {
            if effort.is_some() {
                body.insert("thinking".into(), json!({"type": "enabled"}));
            } else if mapped_level(model, ModelThinkingLevel::Off) != Some(None) {
                body.insert("thinking".into(), json!({"type": "disabled"}));
            }
            if let (Some(level), true) = (effort, compat.supports_reasoning_effort) {
                body.insert("reasoning_effort".into(), effort_value(model, level));
            }
        }
        ThinkingFormat::OpenRouter => {
            if let Some(level) = effort {
                body.insert(
                    "reasoning".into(),
                    json!({"effort": effort_value(model, level)}),
                );
            } else if mapped_level(model, ModelThinkingLevel::Off) != Some(None) {
                let off = mapped_level(model, ModelThinkingLevel::Off)
                    .flatten()
                    .unwrap_or_else(|| "none".into());
                body.insert("reasoning".into(), json!({"effort": off}));
            }
        }
        ThinkingFormat::Together => {
            body.insert("reasoning".into(), json!({"enabled": effort.is_some()}));
            if let (Some(level), true) = (effort, compat.supports_reasoning_effort) {
                body.insert("reasoning_effort".into(), effort_value(model, level));
            }
        }
        ThinkingFormat::AntLing => {
            if let Some(level) = effort {
                if let Some(Some(v)) = mapped_level(model, level) {
                    body.insert("reasoning".into(), json!({"effort": v}));
                }
            }
        }
        ThinkingFormat::OpenAi => {
            if compat.supports_reasoning_effort {
                match effort {
                    Some(level) => {
                        body.insert("reasoning_effort".into(), effort_value(model, level));
                    }
                    None => {
                        if let Some(Some(off)) = mapped_level(model, ModelThinkingLevel::Off) {
                            body.insert("reasoning_effort".into(), json!(off));
                        }
                    }
                }
            }
        }
    }
}

/// The session-affinity headers, when the compat asks for them and caching is on.
pub(super) fn session_headers(call: &Call<'_, Compat>) -> Vec<(String, String)> {
    let Call { compat, setup, .. } = *call;
    let Some(session) = setup
        .cache_session_id
        .as_deref()
        .filter(|_| compat.send_session_affinity_headers)
    else {
        return Vec::new();
    };
    let mut headers = compat.session_affinity_format.headers(session);
    if compat.session_affinity_format != SessionAffinityFormat::OpenRouter {
        headers.push(("x-session-affinity".into(), session.into()));
    }
    headers
}
