//! Reading an `openai-completions` response: chunks translated into events (text and refusals, content given
//! as typed parts, reasoning in `reasoning_content` / `reasoning` / `reasoning_text`, OpenRouter
//! `reasoning_details`, tool calls keyed by stream index, usage from the final chunk, Groq's `x_groq` or an
//! error chunk), every `*_end` after the body ended, then the stop reason.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::compat::Compat;
use super::reasoning_details::{append_reasoning_detail, is_reasoning_detail};
use crate::content::{AssistantBlock, TextContent, ThinkingContent, ToolCall};
use crate::message::StopReason;
use crate::model::Model;
use crate::providers::exchange::{Call, Opened};
use crate::providers::output::Output;
use crate::usage::{Usage, calculate_cost};

/// Reads the response to its end and ends `output` with `done` or `error`.
pub(super) async fn read(call: &Call<'_, Compat>, response: Opened) {
    let Call { model, options, .. } = *call;
    let compat = call.compat;
    let Opened {
        mut events,
        mut output,
    } = response;
    let mut state = ChunkState::default();
    loop {
        let chunk = match events.next_json().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(text) => return output.fail(options.is_cancelled(), text),
        };
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            let mut text = error.get("message").and_then(Value::as_str).map_or_else(
                || format!("{} reported an error: {error}", events.label()),
                str::to_string,
            );
            if let Some(raw) = error.pointer("/metadata/raw") {
                let raw = raw.as_str().map_or_else(|| raw.to_string(), str::to_string);
                if !text.contains(&raw) {
                    text.push('\n');
                    text.push_str(&raw);
                }
            }
            // OpenRouter's error chunk also reports the usage spent so far (pi drops it).
            if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
                output.message.usage = parse_usage(usage, model);
            }
            state.finish_details(&mut output);
            return output.fail(options.is_cancelled(), text);
        }
        state.apply_chunk(model, &chunk, &mut output);
    }
    // All blocks end after the body, in content order.
    for index in 0..output.len() {
        state.finish_block(index, &mut output);
    }
    if options.is_cancelled() {
        return output.fail(true, "Request was aborted".into());
    }
    if !state.has_finish_reason && !compat.supports_finish_reason {
        output.message.stop_reason = if output.has_tool_call() {
            StopReason::ToolUse
        } else {
            StopReason::Stop
        };
    }
    if output.message.stop_reason == StopReason::Error {
        let text = output
            .message
            .error_message
            .take()
            .unwrap_or_else(|| "Provider returned an error stop reason".into());
        return output.fail(false, text);
    }
    if (compat.supports_finish_reason && !state.has_finish_reason)
        || output.message.stop_reason == StopReason::Pending
    {
        return output.fail(
            false,
            format!(
                "Stream ended without finish_reason: {} closed the response before it was complete.",
                events.label()
            ),
        );
    }
    output.done();
}

/// Per-response parsing state.
#[derive(Default)]
struct ChunkState {
    text: Option<usize>,
    thinking: Option<usize>,
    /// Tool calls by stream index and by id, with their raw argument text.
    by_index: HashMap<i64, usize>,
    by_id: HashMap<String, usize>,
    partial_args: HashMap<usize, String>,
    reasoning_details: Option<Vec<Value>>,
    has_finish_reason: bool,
}

impl ChunkState {
    fn apply_chunk(&mut self, model: &Model, chunk: &Value, output: &mut Output) {
        // pi's `responseId ||= chunk.id`: the first id, an empty one kept only until a real one arrives.
        if let Some(id) = chunk.get("id").and_then(Value::as_str) {
            if output
                .message
                .response_id
                .as_deref()
                .is_none_or(str::is_empty)
            {
                output.message.response_id = Some(id.into());
            }
        }
        if let Some(reported) = chunk.get("model").and_then(Value::as_str) {
            if !reported.is_empty()
                && reported != model.id
                && output.message.response_model.is_none()
            {
                output.message.response_model = Some(reported.into());
            }
        }
        // Groq reports usage under `x_groq.usage` (its last chunk may carry no top-level `usage`).
        let chunk_usage = chunk
            .get("usage")
            .filter(|u| u.is_object())
            .or_else(|| chunk.pointer("/x_groq/usage").filter(|u| u.is_object()));
        if let Some(usage) = chunk_usage {
            output.message.usage = parse_usage(usage, model);
        }
        let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return;
        };
        if chunk_usage.is_none() {
            if let Some(usage) = choice.get("usage").filter(|u| u.is_object()) {
                output.message.usage = parse_usage(usage, model);
            }
        }
        if let Some(reason) = choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            output.message.raw_stop_reason = Some(reason.into());
            let (stop, error) = map_stop_reason(reason);
            output.message.stop_reason = stop;
            if let Some(error) = error {
                output.message.error_message = Some(error);
            }
            self.has_finish_reason = true;
        }
        let Some(delta) = choice.get("delta").filter(|d| d.is_object()) else {
            return;
        };
        // A refusal is kept as answer text (pi drops it, leaving an empty answer that claims success).
        for field in ["content", "refusal"] {
            match delta.get(field) {
                Some(Value::String(text)) => self.push_text(output, text),
                Some(Value::Array(parts)) => {
                    for part in content_parts(parts) {
                        match part {
                            ContentPart::Text(text) => self.push_text(output, text),
                            ContentPart::Thinking(text) => {
                                let index = self.ensure_thinking(output, "");
                                output.thinking_delta(index, text);
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        let reasoning = ["reasoning_content", "reasoning", "reasoning_text"]
            .into_iter()
            .find_map(|field| {
                delta
                    .get(field)
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty())
                    .map(|v| (field, v))
            });
        if let Some((field, text)) = reasoning {
            let signature = if model.provider == "opencode-go" && field == "reasoning" {
                "reasoning_content"
            } else {
                field
            };
            let index = self.ensure_thinking(output, signature);
            output.thinking_delta(index, text);
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for call in calls {
                self.apply_tool_call(call, output);
            }
        }
        if let Some(details) = delta.get("reasoning_details").and_then(Value::as_array) {
            for detail in details.iter().filter(|d| is_reasoning_detail(d)) {
                self.ensure_thinking(output, "");
                append_reasoning_detail(
                    self.reasoning_details.get_or_insert_with(Vec::new),
                    detail,
                );
            }
        }
    }

    fn push_text(&mut self, output: &mut Output, text: &str) {
        if text.is_empty() {
            return;
        }
        let index = match self.text {
            Some(index) => index,
            None => {
                let index = output.text_start(TextContent::new(""));
                self.text = Some(index);
                index
            }
        };
        output.text_delta(index, text);
    }

    fn ensure_thinking(&mut self, output: &mut Output, signature: &str) -> usize {
        if let Some(index) = self.thinking {
            return index;
        }
        let mut block = ThinkingContent::new("");
        block.thinking_signature = Some(signature.into());
        let index = output.thinking_start(block);
        self.thinking = Some(index);
        index
    }

    fn apply_tool_call(&mut self, call: &Value, output: &mut Output) {
        let stream_index = call.get("index").and_then(Value::as_i64);
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty());
        let name = call
            .pointer("/function/name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let mut index = stream_index.and_then(|i| self.by_index.get(&i).copied());
        if index.is_none() {
            index = id.and_then(|id| self.by_id.get(id).copied());
        }
        let index = match index {
            Some(index) => index,
            None => {
                let index =
                    output.toolcall_start(ToolCall::new(id.unwrap_or_default(), name, json!({})));
                self.partial_args.insert(index, String::new());
                index
            }
        };
        if let Some(i) = stream_index {
            self.by_index.entry(i).or_insert(index);
        }
        if let Some(id) = id {
            self.by_id.insert(id.to_string(), index);
            output.with_tool_call(index, |block| {
                if block.id.is_empty() {
                    block.id = id.to_string();
                }
            });
        }
        if !name.is_empty() {
            output.with_tool_call(index, |block| {
                if block.name.is_empty() {
                    block.name = name.to_string();
                }
            });
        }
        match call
            .pointer("/function/arguments")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
        {
            Some(arguments) => {
                let buffer = self.partial_args.entry(index).or_default();
                buffer.push_str(arguments);
                let parsed = crate::partial_json::parse_streaming_json(buffer);
                output.toolcall_delta(index, arguments, Some(parsed));
            }
            None => output.toolcall_delta(index, "", None),
        }
    }

    fn finish_details(&mut self, output: &mut Output) {
        if let (Some(index), Some(details)) = (self.thinking, self.reasoning_details.as_ref()) {
            let signature = Value::Array(details.clone()).to_string();
            output.with_thinking(index, |block| block.thinking_signature = Some(signature));
        }
    }

    fn finish_block(&mut self, index: usize, output: &mut Output) {
        match output.block(index) {
            Some(AssistantBlock::Text(_)) => output.text_end(index),
            Some(AssistantBlock::Thinking(_)) => {
                self.finish_details(output);
                output.thinking_end(index);
            }
            Some(AssistantBlock::ToolCall(_)) => {
                let buffer = self.partial_args.remove(&index).unwrap_or_default();
                let parsed = crate::partial_json::parse_streaming_json(&buffer);
                output.toolcall_end(index, Some(parsed));
            }
            None => {}
        }
    }
}

/// A piece of a `delta.content` given as an array of typed parts (Mistral's reasoning models stream
/// `{"type": "thinking", "thinking": [{"type": "text", "text"}]}` and `{"type": "text", "text"}` parts).
enum ContentPart<'a> {
    Text(&'a str),
    Thinking(&'a str),
}

/// The text and thinking of content parts; parts of any other type carry nothing to show and are skipped
/// (pi appends the array itself to the text, which reads "[object Object]").
fn content_parts(parts: &[Value]) -> Vec<ContentPart<'_>> {
    let mut out = Vec::new();
    for part in parts {
        match part.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(text) = part.get("text").and_then(Value::as_str) {
                    out.push(ContentPart::Text(text));
                }
            }
            Some("thinking") => match part.get("thinking") {
                Some(Value::String(text)) => out.push(ContentPart::Thinking(text)),
                Some(Value::Array(inner)) => out.extend(
                    inner
                        .iter()
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        .map(ContentPart::Thinking),
                ),
                _ => {}
            },
            _ => {}
        }
    }
    out.retain(|part| match part {
        ContentPart::Text(text) | ContentPart::Thinking(text) => !text.is_empty(),
    });
    out
}

fn parse_usage(raw: &Value, model: &Model) -> Usage {
    let n = |v: Option<&Value>| {
        v.and_then(Value::as_f64)
            .filter(|x| *x > 0.0)
            .map_or(0, |x| x as u64)
    };
    let prompt = n(raw.get("prompt_tokens"));
    let cache_read_value = raw
        .pointer("/prompt_tokens_details/cached_tokens")
        .filter(|v| !v.is_null())
        .or_else(|| raw.get("prompt_cache_hit_tokens").filter(|v| !v.is_null()))
        .or_else(|| raw.get("cached_tokens").filter(|v| !v.is_null()));
    let cache_read = n(cache_read_value);
    let cache_write = n(raw.pointer("/prompt_tokens_details/cache_write_tokens"));
    let input = prompt.saturating_sub(cache_read + cache_write);
    let output = n(raw.get("completion_tokens"));
    let mut usage = Usage {
        input,
        output,
        cache_read,
        cache_write,
        cache_write_1h: None,
        reasoning: Some(n(raw.pointer("/completion_tokens_details/reasoning_tokens"))),
        total_tokens: input + output + cache_read + cache_write,
        ..Usage::default()
    };
    calculate_cost(model, &mut usage);
    usage
}

fn map_stop_reason(reason: &str) -> (StopReason, Option<String>) {
    match reason {
        "stop" | "end" => (StopReason::Stop, None),
        "length" => (StopReason::Length, None),
        "function_call" | "tool_calls" => (StopReason::ToolUse, None),
        other => (
            StopReason::Error,
            Some(format!("Provider finish_reason: {other}")),
        ),
    }
}
