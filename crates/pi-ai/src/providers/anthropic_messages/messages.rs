//! The transcript as Anthropic messages: tool-call ids cut to the API's alphabet, thinking replayed with its
//! signature (redacted thinking as its data), consecutive tool results in one user message, and the
//! `cache_control` breakpoint on the last user block.

use serde_json::{Value, json};

use crate::content::{AssistantBlock, UserBlock};
use crate::message::{Message, UserContent};
use crate::providers::common;

pub(super) fn normalize_tool_call_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

fn content_blocks(blocks: &[UserBlock]) -> Value {
    let has_images = blocks.iter().any(|b| matches!(b, UserBlock::Image(_)));
    if !has_images {
        return json!(common::sanitize(&common::joined_text(blocks)));
    }
    let mut out: Vec<Value> = blocks
        .iter()
        .map(|b| match b {
            UserBlock::Text(t) => {
                json!({"type": "text", "text": common::sanitize(&t.text.to_string())})
            }
            UserBlock::Image(img) => json!({"type": "image", "source": {
                "type": "base64", "media_type": img.mime_type, "data": img.data}}),
        })
        .collect();
    if !blocks.iter().any(|b| matches!(b, UserBlock::Text(_))) {
        out.insert(0, json!({"type": "text", "text": "(see attached image)"}));
    }
    Value::Array(out)
}

/// Converts the (already transformed) transcript into Anthropic messages.
pub(super) fn convert_messages(
    messages: &[Message],
    cache_control: Option<&Value>,
    allow_empty_signature: bool,
) -> Vec<Value> {
    let mut params: Vec<Value> = Vec::new();
    let mut i = 0;
    while i < messages.len() {
        match &messages[i] {
            Message::User(user) => match &user.content {
                UserContent::Text(text) => {
                    if !text.trim().is_empty() {
                        params.push(json!({"role": "user", "content": common::sanitize(text)}));
                    }
                }
                UserContent::Blocks(blocks) => {
                    let converted: Vec<Value> = blocks
                        .iter()
                        .filter_map(|b| match b {
                            UserBlock::Text(t) => {
                                let text = t.text.to_string();
                                (!text.trim().is_empty()).then(
                                    || json!({"type": "text", "text": common::sanitize(&text)}),
                                )
                            }
                            UserBlock::Image(img) => Some(json!({"type": "image", "source": {
                                "type": "base64", "media_type": img.mime_type, "data": img.data}})),
                        })
                        .collect();
                    if !converted.is_empty() {
                        params.push(json!({"role": "user", "content": converted}));
                    }
                }
            },
            Message::Assistant(assistant) => {
                let mut blocks: Vec<Value> = Vec::new();
                for block in &assistant.content {
                    match block.as_ref() {
                        AssistantBlock::Text(t) => {
                            let text = t.text.to_string();
                            if !text.trim().is_empty() {
                                blocks
                                    .push(json!({"type": "text", "text": common::sanitize(&text)}));
                            }
                        }
                        AssistantBlock::Thinking(t) => {
                            if t.redacted == Some(true) {
                                blocks.push(json!({"type": "redacted_thinking", "data": t.thinking_signature}));
                                continue;
                            }
                            let thinking = t.thinking.to_string();
                            let signature = t
                                .thinking_signature
                                .as_deref()
                                .filter(|s| !s.trim().is_empty());
                            if thinking.trim().is_empty() && signature.is_none() {
                                continue;
                            }
                            match signature {
                                Some(sig) => blocks.push(json!({"type": "thinking",
                                    "thinking": common::sanitize(&thinking), "signature": sig})),
                                None if allow_empty_signature => blocks
                                    .push(json!({"type": "thinking",
                                    "thinking": common::sanitize(&thinking), "signature": ""})),
                                None => blocks.push(
                                    json!({"type": "text", "text": common::sanitize(&thinking)}),
                                ),
                            }
                        }
                        AssistantBlock::ToolCall(c) => {
                            let input = if c.arguments.is_null() {
                                json!({})
                            } else {
                                c.arguments.clone()
                            };
                            blocks.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}));
                        }
                    }
                }
                if !blocks.is_empty() {
                    params.push(json!({"role": "assistant", "content": blocks}));
                }
            }
            Message::ToolResult(_) => {
                let mut results = Vec::new();
                while let Some(Message::ToolResult(result)) = messages.get(i) {
                    results.push(json!({
                        "type": "tool_result",
                        "tool_use_id": result.tool_call_id,
                        "content": content_blocks(&result.content),
                        "is_error": result.is_error,
                    }));
                    i += 1;
                }
                params.push(json!({"role": "user", "content": results}));
                continue;
            }
        }
        i += 1;
    }
    if let (Some(cache_control), Some(last)) = (cache_control, params.last_mut()) {
        if last.get("role").and_then(Value::as_str) == Some("user") {
            match last.get_mut("content") {
                Some(Value::Array(blocks)) => {
                    if let Some(block) = blocks.last_mut().and_then(Value::as_object_mut) {
                        if matches!(
                            block.get("type").and_then(Value::as_str),
                            Some("text" | "image" | "tool_result")
                        ) {
                            block.insert("cache_control".into(), cache_control.clone());
                        }
                    }
                }
                Some(Value::String(text)) => {
                    let text = text.clone();
                    if let Some(obj) = last.as_object_mut() {
                        obj.insert(
                            "content".into(),
                            json!([{"type": "text", "text": text, "cache_control": cache_control}]),
                        );
                    }
                }
                _ => {}
            }
        }
    }
    params
}
