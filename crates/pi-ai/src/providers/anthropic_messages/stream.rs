//! Reading an `anthropic-messages` response: text, thinking with signatures, redacted thinking, `tool_use`
//! with `input_json_delta`, usage from `message_start` and `message_delta`, the stop-reason mapping; an SSE
//! `error` event ends the stream with the provider's message.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::compat::Compat;
use crate::content::{AssistantBlock, TextContent, ThinkingContent, ToolCall};
use crate::message::StopReason;
use crate::model::Model;
use crate::providers::error_message;
use crate::providers::exchange::{Call, Opened};
use crate::providers::output::Output;
use crate::usage::calculate_cost;

/// Reads the response to its end and ends `output` with `done` or `error`.
pub(super) async fn read(call: &Call<'_, Compat>, response: Opened) {
    let Call { model, options, .. } = *call;
    let Opened {
        mut events,
        mut output,
    } = response;
    let mut state = State::default();
    let mut saw_start = false;
    let mut saw_stop = false;
    loop {
        let event = match events.next().await {
            Ok(Some(event)) => event,
            Ok(None) => break,
            Err(text) => return output.fail(options.is_cancelled(), text),
        };
        let name = event.event.as_deref().unwrap_or_default();
        if name == "error" {
            let text = sse_error_text(events.label(), &event.data);
            return output.fail(options.is_cancelled(), text);
        }
        if !matches!(
            name,
            "message_start"
                | "message_delta"
                | "message_stop"
                | "content_block_start"
                | "content_block_delta"
                | "content_block_stop"
        ) {
            continue;
        }
        let parsed: Value = match serde_json::from_str(&event.data)
            .or_else(|_| serde_json::from_str(&crate::partial_json::repair_json(&event.data)))
        {
            Ok(value) => value,
            Err(error) => {
                let text = format!(
                    "Could not parse Anthropic SSE event {name}: {}",
                    error_message::invalid_json(events.label(), &error, &event.data)
                );
                return output.fail(options.is_cancelled(), text);
            }
        };
        match parsed
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "message_start" => saw_start = true,
            "message_stop" => saw_stop = true,
            _ => {}
        }
        if let Err(text) = state.apply(model, &parsed, &mut output) {
            return output.fail(options.is_cancelled(), text);
        }
    }
    if saw_start && !saw_stop {
        return output.fail(
            options.is_cancelled(),
            "Anthropic stream ended before message_stop: the response was cut off. Try again."
                .into(),
        );
    }
    if options.is_cancelled() {
        return output.fail(true, "Request was aborted".into());
    }
    output.end("Anthropic stream ended without a stop reason");
}

/// An SSE `error` event: `{"type":"error","error":{"type":…,"message":…}}`.
fn sse_error_text(label: &str, data: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(data).ok();
    let kind = parsed
        .as_ref()
        .and_then(|v| v.pointer("/error/type"))
        .and_then(Value::as_str);
    let message = parsed
        .as_ref()
        .and_then(|v| v.pointer("/error/message"))
        .and_then(Value::as_str);
    match (kind, message) {
        (Some("overloaded_error"), Some(m)) => {
            format!("{label} is overloaded ({m}). Try again in a moment.")
        }
        (Some("rate_limit_error"), Some(m)) => {
            format!("{label} is rate limiting requests ({m}). Wait a moment and try again.")
        }
        (Some(kind), Some(m)) => format!("{label} reported an error mid-response ({kind}): {m}"),
        _ => format!("{label} reported an error mid-response: {data}"),
    }
}

#[derive(Default)]
struct State {
    /// Provider block index → our content index.
    blocks: HashMap<i64, usize>,
    partial_json: HashMap<usize, String>,
    usage_model: Option<Model>,
}

impl State {
    fn index_of(&self, event: &Value) -> Option<usize> {
        event
            .get("index")
            .and_then(Value::as_i64)
            .and_then(|i| self.blocks.get(&i).copied())
    }

    fn apply(&mut self, model: &Model, event: &Value, output: &mut Output) -> Result<(), String> {
        match event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "message_start" => {
                let message = event.get("message").unwrap_or(&Value::Null);
                if let Some(id) = message.get("id").and_then(Value::as_str) {
                    output.message.response_id = Some(id.into());
                }
                if let Some(reported) = message.get("model").and_then(Value::as_str) {
                    output.message.model = reported.into();
                }
                let usage = message.get("usage").unwrap_or(&Value::Null);
                let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
                let u = &mut output.message.usage;
                u.input = n("input_tokens");
                u.output = n("output_tokens");
                u.cache_read = n("cache_read_input_tokens");
                u.cache_write = n("cache_creation_input_tokens");
                u.cache_write_1h = Some(
                    usage
                        .pointer("/cache_creation/ephemeral_1h_input_tokens")
                        .and_then(Value::as_u64)
                        .unwrap_or(0),
                );
                u.total_tokens = u.input + u.output + u.cache_read + u.cache_write;
                calculate_cost(self.usage_model.as_ref().unwrap_or(model), u);
            }
            "content_block_start" => {
                let block = event.get("content_block").unwrap_or(&Value::Null);
                let provider_index = event.get("index").and_then(Value::as_i64).unwrap_or(-1);
                let text_field = |key: &str| {
                    block
                        .get(key)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                };
                let index = match block
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                {
                    "text" => Some(output.text_start(TextContent::new(text_field("text")))),
                    "thinking" => {
                        let mut thinking = ThinkingContent::new(text_field("thinking"));
                        thinking.thinking_signature = Some(text_field("signature"));
                        Some(output.thinking_start(thinking))
                    }
                    "redacted_thinking" => {
                        let mut thinking = ThinkingContent::new("[Reasoning redacted]");
                        thinking.thinking_signature = Some(text_field("data"));
                        thinking.redacted = Some(true);
                        Some(output.thinking_start(thinking))
                    }
                    "tool_use" => {
                        let input = block
                            .get("input")
                            .filter(|v| !v.is_null())
                            .cloned()
                            .unwrap_or_else(|| json!({}));
                        let call = ToolCall::new(text_field("id"), text_field("name"), input);
                        let index = output.toolcall_start(call);
                        self.partial_json.insert(index, String::new());
                        Some(index)
                    }
                    "fallback" if output.len() > 0 => {
                        return Err(
                            "Anthropic performed an unsupported mid-output model fallback".into(),
                        );
                    }
                    _ => None,
                };
                if let Some(index) = index {
                    self.blocks.insert(provider_index, index);
                }
            }
            "content_block_delta" => {
                let Some(index) = self.index_of(event) else {
                    return Ok(());
                };
                let delta = event.get("delta").unwrap_or(&Value::Null);
                let text = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or_default();
                match (
                    delta
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    output.block(index),
                ) {
                    ("text_delta", Some(AssistantBlock::Text(_))) => {
                        output.text_delta(index, text("text"))
                    }
                    ("thinking_delta", Some(AssistantBlock::Thinking(_))) => {
                        output.thinking_delta(index, text("thinking"))
                    }
                    ("input_json_delta", Some(AssistantBlock::ToolCall(_))) => {
                        let chunk = text("partial_json");
                        let buffer = self.partial_json.entry(index).or_default();
                        buffer.push_str(chunk);
                        let parsed = crate::parse_streaming_json(buffer);
                        output.toolcall_delta(index, chunk, Some(parsed));
                    }
                    ("signature_delta", Some(AssistantBlock::Thinking(_))) => {
                        let piece = text("signature").to_string();
                        output.with_thinking(index, |block| {
                            block
                                .thinking_signature
                                .get_or_insert_with(String::new)
                                .push_str(&piece);
                        });
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                let Some(index) = self.index_of(event) else {
                    return Ok(());
                };
                if let Some(i) = event.get("index").and_then(Value::as_i64) {
                    self.blocks.remove(&i);
                }
                match output.block(index) {
                    Some(AssistantBlock::Text(_)) => output.text_end(index),
                    Some(AssistantBlock::Thinking(_)) => output.thinking_end(index),
                    Some(AssistantBlock::ToolCall(_)) => {
                        // Input given at block start stays when no input_json_delta followed (pi drops it).
                        let buffer = self.partial_json.remove(&index).unwrap_or_default();
                        let arguments = if buffer.trim().is_empty() {
                            None
                        } else {
                            Some(crate::parse_streaming_json(&buffer))
                        };
                        output.toolcall_end(index, arguments);
                    }
                    None => {}
                }
            }
            "message_delta" => {
                let delta = event.get("delta").unwrap_or(&Value::Null);
                if let Some(reason) = delta
                    .get("stop_reason")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                {
                    output.message.raw_stop_reason = Some(reason.into());
                    let stop = match reason {
                        "end_turn" | "pause_turn" | "stop_sequence" => StopReason::Stop,
                        "max_tokens" => StopReason::Length,
                        "tool_use" => StopReason::ToolUse,
                        "refusal" => {
                            let explanation = delta
                                .pointer("/stop_details/explanation")
                                .and_then(Value::as_str)
                                .filter(|s| !s.is_empty())
                                .unwrap_or("The model refused to complete the request");
                            output.message.error_message = Some(explanation.into());
                            StopReason::Error
                        }
                        "sensitive" => {
                            output.message.error_message =
                                Some("Provider stopped with: sensitive".into());
                            StopReason::Error
                        }
                        other => return Err(format!("Unhandled stop reason: {other}")),
                    };
                    output.message.stop_reason = stop;
                }
                if let Some(usage) = event.get("usage").filter(|u| u.is_object()) {
                    let get = |key: &str| usage.get(key).and_then(Value::as_u64);
                    let u = &mut output.message.usage;
                    if let Some(v) = get("input_tokens") {
                        u.input = v;
                    }
                    if let Some(v) = get("output_tokens") {
                        u.output = v;
                    }
                    if let Some(v) = get("cache_read_input_tokens") {
                        u.cache_read = v;
                    }
                    if let Some(v) = get("cache_creation_input_tokens") {
                        u.cache_write = v;
                    }
                    if let Some(v) = usage
                        .pointer("/output_tokens_details/thinking_tokens")
                        .and_then(Value::as_u64)
                    {
                        u.reasoning = Some(v);
                    }
                }
                let u = &mut output.message.usage;
                u.total_tokens = u.input + u.output + u.cache_read + u.cache_write;
                calculate_cost(self.usage_model.as_ref().unwrap_or(model), u);
            }
            _ => {}
        }
        Ok(())
    }
}
