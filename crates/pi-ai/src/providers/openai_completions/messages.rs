//! The transcript as Chat Completions messages: tool-call ids folded to the API's limits, tool results as
//! `tool` messages (their images in a following user message), assistant thinking replayed the way the
//! compat switches ask.

use serde_json::{Map, Value, json};

use super::compat::Compat;
use super::reasoning_details::{is_reasoning_detail, parse_reasoning_details};
use crate::content::{AssistantBlock, ThinkingContent, ToolCall, UserBlock};
use crate::context::Context;
use crate::message::{AssistantMessage, Message, UserContent};
use crate::model::Model;
use crate::providers::common;

/// Chat Completions tool-call ids: Responses-style `call|item` ids are folded into one id of at most 40
/// characters; OpenAI's own ids are cut to 40.
fn normalize_tool_call_id(model: &Model, id: &str) -> String {
    if let Some((call, item)) = id.split_once('|') {
        let clean = |s: &str| -> String {
            s.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        };
        let call_id = clean(call);
        let item_id = clean(item);
        let combined = if item_id.is_empty() {
            call_id.clone()
        } else {
            format!("{call_id}_{item_id}")
        };
        if combined.chars().count() <= 40 {
            return combined;
        }
        let hash = common::short_hash(id);
        let prefix: String = call_id
            .chars()
            .take(40usize.saturating_sub(hash.len() + 1).max(1))
            .collect();
        return format!("{prefix}_{hash}");
    }
    if model.provider == "openai" && id.chars().count() > 40 {
        return id.chars().take(40).collect();
    }
    id.to_string()
}

fn is_reasoning_field(name: &str) -> bool {
    matches!(name, "reasoning" | "reasoning_content" | "reasoning_text")
}

/// Converts the transcript into Chat Completions messages.
pub(super) fn convert_messages(model: &Model, context: &Context, compat: &Compat) -> Vec<Value> {
    let mut params: Vec<Value> = Vec::new();
    let messages = crate::transform::transform_messages(&context.messages, model, |id| {
        normalize_tool_call_id(model, id)
    });
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        let role = if model.reasoning && compat.supports_developer_role {
            "developer"
        } else {
            "system"
        };
        params.push(json!({"role": role, "content": common::sanitize(system)}));
    }
    let mut last_role: Option<&str> = None;
    let mut i = 0;
    while i < messages.len() {
        let message = &messages[i];
        if compat.requires_assistant_after_tool_result
            && last_role == Some("toolResult")
            && matches!(message, Message::User(_))
        {
            params.push(
                json!({"role": "assistant", "content": "I have processed the tool results."}),
            );
        }
        match message {
            Message::User(user) => {
                match &user.content {
                    UserContent::Text(text) => {
                        params.push(json!({"role": "user", "content": common::sanitize(text)}))
                    }
                    UserContent::Blocks(blocks) => {
                        let content: Vec<Value> = blocks
                            .iter()
                            .map(|b| match b {
                                UserBlock::Text(t) => json!({"type": "text", "text": common::sanitize(&t.text.to_string())}),
                                UserBlock::Image(img) => json!({"type": "image_url", "image_url": {
                                    "url": format!("data:{};base64,{}", img.mime_type, img.data)}}),
                            })
                            .collect();
                        if content.is_empty() {
                            i += 1;
                            continue;
                        }
                        params.push(json!({"role": "user", "content": content}));
                    }
                }
                last_role = Some("user");
            }
            Message::Assistant(assistant) => {
                if let Some(converted) = convert_assistant(model, assistant, compat) {
                    params.push(converted);
                }
                last_role = Some("assistant");
            }
            Message::ToolResult(_) => {
                let mut images: Vec<Value> = Vec::new();
                let mut j = i;
                while let Some(Message::ToolResult(result)) = messages.get(j) {
                    let text = common::joined_text(&result.content);
                    let has_images = result
                        .content
                        .iter()
                        .any(|b| matches!(b, UserBlock::Image(_)));
                    let shown = if !text.is_empty() {
                        text
                    } else if has_images {
                        "(see attached image)".to_string()
                    } else {
                        "(no tool output)".to_string()
                    };
                    let mut entry = Map::new();
                    entry.insert("role".into(), json!("tool"));
                    entry.insert("content".into(), json!(common::sanitize(&shown)));
                    entry.insert("tool_call_id".into(), json!(result.tool_call_id));
                    if compat.requires_tool_result_name && !result.tool_name.is_empty() {
                        entry.insert("name".into(), json!(result.tool_name));
                    }
                    params.push(Value::Object(entry));
                    if has_images && model.supports_images() {
                        for block in &result.content {
                            if let UserBlock::Image(img) = block {
                                images.push(json!({"type": "image_url", "image_url": {
                                    "url": format!("data:{};base64,{}", img.mime_type, img.data)}}));
                            }
                        }
                    }
                    j += 1;
                }
                i = j;
                if images.is_empty() {
                    last_role = Some("toolResult");
                } else {
                    if compat.requires_assistant_after_tool_result {
                        params.push(json!({"role": "assistant", "content": "I have processed the tool results."}));
                    }
                    let mut content = vec![
                        json!({"type": "text", "text": "Attached image(s) from tool result:"}),
                    ];
                    content.extend(images);
                    params.push(json!({"role": "user", "content": content}));
                    last_role = Some("user");
                }
                continue;
            }
        }
        i += 1;
    }
    params
}

fn convert_assistant(model: &Model, message: &AssistantMessage, compat: &Compat) -> Option<Value> {
    let mut out = Map::new();
    out.insert("role".into(), json!("assistant"));
    out.insert(
        "content".into(),
        if compat.requires_assistant_after_tool_result {
            json!("")
        } else {
            Value::Null
        },
    );
    let mut texts: Vec<String> = Vec::new();
    let mut thinking: Vec<&ThinkingContent> = Vec::new();
    let mut calls: Vec<&ToolCall> = Vec::new();
    for block in &message.content {
        match block.as_ref() {
            AssistantBlock::Text(t) => {
                let text = t.text.to_string();
                if !text.trim().is_empty() {
                    texts.push(common::sanitize(&text));
                }
            }
            AssistantBlock::Thinking(t) => thinking.push(t),
            AssistantBlock::ToolCall(c) => calls.push(c),
        }
    }
    let assistant_text = texts.concat();
    let signed_details = thinking
        .iter()
        .find_map(|t| parse_reasoning_details(t.thinking_signature.as_deref()));
    let legacy_details: Vec<Value> = calls
        .iter()
        .filter_map(|c| {
            let parsed: Value = serde_json::from_str(c.thought_signature.as_deref()?).ok()?;
            let ok = is_reasoning_detail(&parsed)
                && parsed.get("type").and_then(Value::as_str) == Some("reasoning.encrypted")
                && parsed
                    .get("id")
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty())
                && parsed
                    .get("data")
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty());
            ok.then_some(parsed)
        })
        .collect();
    let preserved = signed_details.or((!legacy_details.is_empty()).then_some(legacy_details));
    let non_empty: Vec<&ThinkingContent> = thinking
        .iter()
        .copied()
        .filter(|t| !t.thinking.to_string().trim().is_empty())
        .collect();
    if !non_empty.is_empty() {
        if compat.requires_thinking_as_text {
            let joined = non_empty
                .iter()
                .map(|t| common::sanitize(&t.thinking.to_string()))
                .collect::<Vec<_>>()
                .join("\n\n");
            let mut parts = vec![json!({"type": "text", "text": joined})];
            parts.extend(texts.iter().map(|t| json!({"type": "text", "text": t})));
            out.insert("content".into(), Value::Array(parts));
        } else {
            if !assistant_text.is_empty() {
                out.insert("content".into(), json!(assistant_text));
            }
            if preserved.is_none() {
                let mut signature = non_empty[0].thinking_signature.clone();
                if model.provider == "opencode-go" && signature.as_deref() == Some("reasoning") {
                    signature = Some("reasoning_content".into());
                }
                if let Some(field) = signature.filter(|s| is_reasoning_field(s)) {
                    let joined = non_empty
                        .iter()
                        .map(|t| t.thinking.to_string())
                        .collect::<Vec<_>>()
                        .join("\n");
                    out.insert(field, json!(joined));
                }
            }
        }
    } else if !assistant_text.is_empty() {
        out.insert("content".into(), json!(assistant_text));
    }
    if !calls.is_empty() {
        let list: Vec<Value> = calls
            .iter()
            .map(|c| {
                json!({"id": c.id, "type": "function", "function": {
                    "name": c.name, "arguments": c.arguments.to_string()}})
            })
            .collect();
        out.insert("tool_calls".into(), Value::Array(list));
    }
    if let Some(details) = preserved {
        out.insert("reasoning_details".into(), Value::Array(details));
    }
    if compat.requires_reasoning_content_on_assistant_messages
        && model.reasoning
        && !out.contains_key("reasoning_content")
    {
        out.insert("reasoning_content".into(), json!(""));
    }
    let has_content = match out.get("content") {
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        _ => false,
    };
    if !has_content && !out.contains_key("tool_calls") {
        return None;
    }
    Some(Value::Object(out))
}
