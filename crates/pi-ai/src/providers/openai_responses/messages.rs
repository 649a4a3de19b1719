//! The transcript as Responses input items: reasoning items and text signatures replayed from earlier turns,
//! function calls with their item ids where they still mean something, tool results with their images.

use serde_json::{Map, Value, json};

use super::compat::Compat;
use super::ids::{
    foreign_tool_call_ids, normalize_tool_call_id, parse_text_signature, pi_short_hash,
};
use crate::content::{AssistantBlock, UserBlock};
use crate::context::Context;
use crate::message::{Message, UserContent};
use crate::model::Model;
use crate::providers::common;

fn tool_result_output(model: &Model, content: &[UserBlock]) -> Value {
    let text = common::joined_text(content);
    let images: Vec<&crate::content::ImageContent> = content
        .iter()
        .filter_map(|b| match b {
            UserBlock::Image(img) => Some(img),
            UserBlock::Text(_) => None,
        })
        .collect();
    if images.is_empty() || !model.supports_images() {
        let shown = if !text.is_empty() {
            text
        } else if images.is_empty() {
            "(no tool output)".into()
        } else {
            "(see attached image)".into()
        };
        return json!(common::sanitize(&shown));
    }
    let mut out = Vec::new();
    if !text.is_empty() {
        out.push(json!({"type": "input_text", "text": common::sanitize(&text)}));
    }
    for img in images {
        out.push(json!({"type": "input_image", "detail": "auto",
            "image_url": format!("data:{};base64,{}", img.mime_type, img.data)}));
    }
    Value::Array(out)
}

/// Converts the transcript into Responses input items.
pub(super) fn convert_messages(model: &Model, context: &Context, compat: &Compat) -> Vec<Value> {
    let mut input: Vec<Value> = Vec::new();
    let foreign = foreign_tool_call_ids(model, &context.messages);
    let messages = crate::transform_messages(&context.messages, model, |id| {
        normalize_tool_call_id(model, id, foreign.contains(id))
    });
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        let developer = model.reasoning && compat.supports_developer_role;
        input.push(json!({"role": if developer { "developer" } else { "system" }, "content": common::sanitize(system)}));
    }
    for (msg_index, message) in messages.iter().enumerate() {
        match message {
            Message::User(user) => {
                let content: Vec<Value> = match &user.content {
                    UserContent::Text(text) => vec![json!({"type": "input_text", "text": common::sanitize(text)})],
                    UserContent::Blocks(blocks) => blocks
                        .iter()
                        .map(|b| match b {
                            UserBlock::Text(t) => json!({"type": "input_text", "text": common::sanitize(&t.text.to_string())}),
                            UserBlock::Image(img) => json!({"type": "input_image", "detail": "auto",
                                "image_url": format!("data:{};base64,{}", img.mime_type, img.data)}),
                        })
                        .collect(),
                };
                if !content.is_empty() {
                    input.push(json!({"role": "user", "content": content}));
                }
            }
            Message::Assistant(assistant) => {
                let same_provider_api =
                    *assistant.provider == *model.provider && assistant.api == model.api;
                let different_model = same_provider_api && *assistant.model != *model.id;
                let mut text_index = 0;
                for block in &assistant.content {
                    match block.as_ref() {
                        AssistantBlock::Thinking(t) => {
                            if let Some(item) = t
                                .thinking_signature
                                .as_deref()
                                .filter(|s| !s.is_empty())
                                .and_then(|s| serde_json::from_str::<Value>(s).ok())
                            {
                                input.push(item);
                            }
                        }
                        AssistantBlock::Text(t) => {
                            let parsed = parse_text_signature(t.text_signature.as_deref());
                            let fallback = if text_index == 0 {
                                format!("msg_pi_{msg_index}")
                            } else {
                                format!("msg_pi_{msg_index}_{text_index}")
                            };
                            text_index += 1;
                            let (id, phase) = match parsed {
                                Some((id, phase)) if !id.is_empty() => {
                                    let id = if id.chars().count() > 64 {
                                        format!("msg_{}", pi_short_hash(&id))
                                    } else {
                                        id
                                    };
                                    (id, phase)
                                }
                                Some((_, phase)) => (fallback, phase),
                                None => (fallback, None),
                            };
                            let mut item = Map::new();
                            item.insert("type".into(), json!("message"));
                            item.insert("role".into(), json!("assistant"));
                            item.insert(
                                "content".into(),
                                json!([{"type": "output_text", "text": common::sanitize(&t.text.to_string()), "annotations": []}]),
                            );
                            item.insert("status".into(), json!("completed"));
                            item.insert("id".into(), json!(id));
                            if let Some(phase) = phase {
                                item.insert("phase".into(), json!(phase));
                            }
                            input.push(Value::Object(item));
                        }
                        AssistantBlock::ToolCall(c) => {
                            let mut parts = c.id.splitn(2, '|');
                            let call_id = parts.next().unwrap_or_default();
                            let mut item_id = parts.next().map(str::to_string);
                            if item_id
                                .as_deref()
                                .is_some_and(|i| different_model && i.starts_with("fc_"))
                                || !item_id.as_deref().is_some_and(|i| i.starts_with("fc_"))
                            {
                                item_id = None;
                            }
                            let mut item = Map::new();
                            item.insert("type".into(), json!("function_call"));
                            if let Some(item_id) = item_id {
                                item.insert("id".into(), json!(item_id));
                            }
                            item.insert("call_id".into(), json!(call_id));
                            item.insert("name".into(), json!(c.name));
                            item.insert("arguments".into(), json!(c.arguments.to_string()));
                            if let (true, Some(ns)) =
                                (same_provider_api && !different_model, &c.namespace)
                            {
                                item.insert("namespace".into(), json!(ns));
                            }
                            input.push(Value::Object(item));
                        }
                    }
                }
            }
            Message::ToolResult(result) => {
                let call_id = result.tool_call_id.split('|').next().unwrap_or_default();
                input.push(json!({"type": "function_call_output", "call_id": call_id,
                    "output": tool_result_output(model, &result.content)}));
            }
        }
    }
    input
}
