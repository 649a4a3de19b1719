//! Reading an `openai-responses` response: output items into blocks (reasoning summaries and text, message
//! text and refusals, function-call arguments), usage, and the `completed` / `incomplete` / `failed` mapping
//! to a stop reason.
//!
//! Deliberate differences from pi, so that every block's deltas add up to its final content: a `"\n\n"`
//! thinking delta is emitted *between* summary parts (pi emits one after every part), and when an item's
//! final text (`output_item.done`) extends what its deltas carried — deltas lost or never sent — the rest is
//! streamed as one more delta before the block ends (pi only replaces the text).

use std::collections::HashMap;

use serde_json::{Value, json};

use super::compat::Compat;
use super::custom_input::{CustomInput, INPUT_PROPERTY};
use super::ids::encode_text_signature;
use crate::content::{AssistantBlock, TextContent, ThinkingContent, ToolCall};
use crate::message::StopReason;
use crate::model::Model;
use crate::providers::exchange::{Call, Opened};
use crate::providers::output::Output;
use crate::usage::{Usage, apply_service_tier_pricing, calculate_cost};

/// Reads the response to its end and ends `output` with `done` or `error`.
pub(super) async fn read(call: &Call<'_, Compat>, response: Opened) {
    let Call { model, options, .. } = *call;
    let Opened {
        mut events,
        mut output,
    } = response;
    let mut state = State::default();
    loop {
        let parsed = match events.next_json().await {
            Ok(Some(parsed)) => parsed,
            Ok(None) => break,
            Err(text) => return output.fail(options.is_cancelled(), text),
        };
        if let Err(text) = state.apply(model, events.label(), &parsed, &mut output) {
            return output.fail(options.is_cancelled(), text);
        }
    }
    if options.is_cancelled() {
        return output.fail(true, "Request was aborted".into());
    }
    if !state.saw_terminal {
        return output.fail(
            false,
            format!(
                "OpenAI Responses stream ended before a terminal response event: {} closed the response early.",
                events.label()
            ),
        );
    }
    output.end("OpenAI Responses stream ended without a stop reason");
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SlotKind {
    Thinking,
    Text,
    ToolCall,
    /// A `custom_tool_call`: free-form input kept as `{"input": text}`.
    CustomToolCall,
}

#[derive(Default)]
struct State {
    /// output_index → (kind, content index).
    slots: HashMap<i64, (SlotKind, usize)>,
    partial_json: HashMap<usize, String>,
    custom_inputs: HashMap<usize, CustomInput>,
    /// Content index of a thinking block that owes a "\n\n" separator before its next summary text.
    pending_separator: Option<usize>,
    saw_terminal: bool,
    reasoning_by_id: HashMap<String, usize>,
}

impl State {
    fn slot(&self, event: &Value, kind: SlotKind) -> Option<usize> {
        let index = event.get("output_index").and_then(Value::as_i64)?;
        self.slots
            .get(&index)
            .filter(|(k, _)| *k == kind)
            .map(|(_, i)| *i)
    }

    fn create_slot(&mut self, output_index: i64, item: &Value, output: &mut Output) {
        let text = |key: &str| {
            item.get(key)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        let slot = match item.get("type").and_then(Value::as_str).unwrap_or_default() {
            "reasoning" => (
                SlotKind::Thinking,
                output.thinking_start(ThinkingContent::new("")),
            ),
            "message" => {
                if text("phase") == "final_answer" {
                    output.message.stop_reason = StopReason::Stop;
                }
                (SlotKind::Text, output.text_start(TextContent::new("")))
            }
            "function_call" => {
                let mut call = ToolCall::new(
                    format!("{}|{}", text("call_id"), text("id")),
                    text("name"),
                    json!({}),
                );
                call.namespace = item
                    .get("namespace")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let index = output.toolcall_start(call);
                self.partial_json.insert(index, text("arguments"));
                (SlotKind::ToolCall, index)
            }
            "custom_tool_call" => {
                let mut call = ToolCall::new(
                    format!("{}|{}", text("call_id"), text("id")),
                    text("name"),
                    json!({INPUT_PROPERTY: text("input")}),
                );
                call.namespace = item
                    .get("namespace")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let index = output.toolcall_start(call);
                self.custom_inputs.insert(index, CustomInput::default());
                (SlotKind::CustomToolCall, index)
            }
            _ => return,
        };
        self.slots.insert(output_index, slot);
    }

    fn apply(
        &mut self,
        model: &Model,
        label: &str,
        event: &Value,
        output: &mut Output,
    ) -> Result<(), String> {
        let text = |key: &str| event.get(key).and_then(Value::as_str).unwrap_or_default();
        match event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "response.created" => {
                if let Some(id) = event.pointer("/response/id").and_then(Value::as_str) {
                    output.message.response_id = Some(id.into());
                }
            }
            "response.output_item.added" => {
                let index = event
                    .get("output_index")
                    .and_then(Value::as_i64)
                    .unwrap_or(-1);
                self.create_slot(index, event.get("item").unwrap_or(&Value::Null), output);
            }
            "response.reasoning_summary_text.delta" => {
                if let Some(index) = self.slot(event, SlotKind::Thinking) {
                    if self.pending_separator.take() == Some(index) {
                        output.thinking_delta(index, "\n\n");
                    }
                    output.thinking_delta(index, text("delta"));
                }
            }
            "response.reasoning_summary_part.done" => {
                if let Some(index) = self.slot(event, SlotKind::Thinking) {
                    self.pending_separator = Some(index);
                }
            }
            "response.reasoning_text.delta" => {
                if let Some(index) = self.slot(event, SlotKind::Thinking) {
                    output.thinking_delta(index, text("delta"));
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                if let Some(index) = self.slot(event, SlotKind::Text) {
                    output.text_delta(index, text("delta"));
                }
            }
            "response.function_call_arguments.delta" => {
                if let Some(index) = self.slot(event, SlotKind::ToolCall) {
                    let delta = text("delta");
                    let buffer = self.partial_json.entry(index).or_default();
                    buffer.push_str(delta);
                    let parsed = crate::parse_streaming_json(buffer);
                    output.toolcall_delta(index, delta, Some(parsed));
                }
            }
            "response.function_call_arguments.done" => {
                if let Some(index) = self.slot(event, SlotKind::ToolCall) {
                    let full = text("arguments").to_string();
                    let previous = self
                        .partial_json
                        .insert(index, full.clone())
                        .unwrap_or_default();
                    let parsed = crate::parse_streaming_json(&full);
                    match full
                        .strip_prefix(previous.as_str())
                        .filter(|rest| !rest.is_empty())
                    {
                        Some(rest) => output.toolcall_delta(index, rest, Some(parsed)),
                        None => output.with_tool_call(index, |call| call.arguments = parsed),
                    }
                }
            }
            "response.custom_tool_call_input.delta" | "response.custom_tool_call_input.done" => {
                if let Some(index) = self.slot(event, SlotKind::CustomToolCall) {
                    let done = event.get("type").and_then(Value::as_str)
                        == Some("response.custom_tool_call_input.done");
                    let next = if done {
                        text("input").to_string()
                    } else {
                        let so_far = self
                            .custom_inputs
                            .get(&index)
                            .map(CustomInput::input)
                            .unwrap_or_default();
                        format!("{so_far}{}", text("delta"))
                    };
                    self.advance_custom_input(index, &next, done, output)?;
                }
            }
            "response.output_item.done" => {
                let item = event.get("item").unwrap_or(&Value::Null);
                let output_index = event
                    .get("output_index")
                    .and_then(Value::as_i64)
                    .unwrap_or(-1);
                let kind = item.get("type").and_then(Value::as_str).unwrap_or_default();
                if kind == "message"
                    && item.get("phase").and_then(Value::as_str) == Some("final_answer")
                {
                    output.message.stop_reason = StopReason::Stop;
                }
                if !self.slots.contains_key(&output_index) {
                    self.create_slot(output_index, item, output);
                }
                let Some(&(slot_kind, index)) = self.slots.get(&output_index) else {
                    return Ok(());
                };
                match (kind, slot_kind) {
                    ("reasoning", SlotKind::Thinking) => {
                        let join = |key: &str| {
                            item.get(key)
                                .and_then(Value::as_array)
                                .map(|parts| {
                                    parts
                                        .iter()
                                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                                        .collect::<Vec<_>>()
                                        .join("\n\n")
                                })
                                .unwrap_or_default()
                        };
                        let (summary, content) = (join("summary"), join("content"));
                        let signature = item.to_string();
                        let streamed = match output.block(index) {
                            Some(AssistantBlock::Thinking(block)) => block.thinking.to_string(),
                            _ => String::new(),
                        };
                        let final_text = if !summary.is_empty() {
                            summary
                        } else if !content.is_empty() {
                            content
                        } else {
                            streamed.clone()
                        };
                        match final_text.strip_prefix(streamed.as_str()) {
                            Some(rest) if !rest.is_empty() => output.thinking_delta(index, rest),
                            Some(_) => {}
                            None => output.with_thinking(index, |block| {
                                block.thinking = crate::SharedText::new(final_text);
                            }),
                        }
                        output.with_thinking(index, |block| {
                            block.thinking_signature = Some(signature);
                        });
                        if let Some(id) = item.get("id").and_then(Value::as_str) {
                            self.reasoning_by_id.insert(id.to_string(), index);
                        }
                        if self.pending_separator == Some(index) {
                            self.pending_separator = None;
                        }
                        output.thinking_end(index);
                        self.slots.remove(&output_index);
                    }
                    ("message", SlotKind::Text) => {
                        let final_text: String = item
                            .get("content")
                            .and_then(Value::as_array)
                            .map(|parts| {
                                parts
                                    .iter()
                                    .filter_map(|p| {
                                        if p.get("type").and_then(Value::as_str)
                                            == Some("output_text")
                                        {
                                            p.get("text").and_then(Value::as_str)
                                        } else {
                                            p.get("refusal").and_then(Value::as_str)
                                        }
                                    })
                                    .collect()
                            })
                            .unwrap_or_default();
                        let id = item
                            .get("id")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string();
                        let phase = item
                            .get("phase")
                            .and_then(Value::as_str)
                            .map(str::to_string);
                        let streamed = match output.block(index) {
                            Some(AssistantBlock::Text(block)) => block.text.to_string(),
                            _ => String::new(),
                        };
                        match final_text.strip_prefix(streamed.as_str()) {
                            Some(rest) if !rest.is_empty() => output.text_delta(index, rest),
                            Some(_) => {}
                            // The deltas disagree with the item's text: the item's text is the answer.
                            None => output.with_text(index, |block| {
                                block.text = crate::SharedText::new(final_text);
                            }),
                        }
                        output.with_text(index, |block| {
                            block.text_signature =
                                Some(encode_text_signature(&id, phase.as_deref()));
                        });
                        output.text_end(index);
                        self.slots.remove(&output_index);
                    }
                    ("function_call", SlotKind::ToolCall) => {
                        let buffer = self.partial_json.remove(&index).unwrap_or_default();
                        let arguments = item
                            .get("arguments")
                            .and_then(Value::as_str)
                            .filter(|s| !s.is_empty());
                        let source = arguments.map_or_else(
                            || {
                                if buffer.is_empty() {
                                    "{}".to_string()
                                } else {
                                    buffer
                                }
                            },
                            str::to_string,
                        );
                        let parsed = crate::parse_streaming_json(&source);
                        if let Some(ns) = item.get("namespace").and_then(Value::as_str) {
                            let ns = ns.to_string();
                            output.with_tool_call(index, |call| call.namespace = Some(ns));
                        }
                        output.toolcall_end(index, Some(parsed));
                        self.slots.remove(&output_index);
                    }
                    ("custom_tool_call", SlotKind::CustomToolCall) => {
                        let next = item.get("input").and_then(Value::as_str).map_or_else(
                            || {
                                self.custom_inputs
                                    .get(&index)
                                    .map(|c| c.input().to_string())
                                    .unwrap_or_default()
                            },
                            str::to_string,
                        );
                        self.advance_custom_input(index, &next, true, output)?;
                        if let Some(ns) = item.get("namespace").and_then(Value::as_str) {
                            let ns = ns.to_string();
                            output.with_tool_call(index, |call| call.namespace = Some(ns));
                        }
                        self.custom_inputs.remove(&index);
                        output.toolcall_end(index, None);
                        self.slots.remove(&output_index);
                    }
                    _ => {}
                }
            }
            "response.completed" | "response.incomplete" => {
                self.finalize(model, event.get("response").unwrap_or(&Value::Null), output);
            }
            "error" => {
                // The error's fields come at the top level or, from newer servers, nested under `error`.
                let field = |key: &str| {
                    event.get(key).filter(|v| !v.is_null()).or_else(|| {
                        event
                            .pointer(&format!("/error/{key}"))
                            .filter(|v| !v.is_null())
                    })
                };
                let code =
                    field("code").map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_string));
                let message = field("message").and_then(Value::as_str).unwrap_or_default();
                return Err(match code {
                    Some(code) => format!("{label} reported an error ({code}): {message}"),
                    None => format!("{label} reported an error: {message}"),
                });
            }
            "response.failed" => {
                self.saw_terminal = true;
                let response = event.get("response").unwrap_or(&Value::Null);
                output.message.raw_stop_reason = response
                    .get("status")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let error = response.get("error").filter(|e| e.is_object());
                let reason = response
                    .pointer("/incomplete_details/reason")
                    .and_then(Value::as_str);
                return Err(match (error, reason) {
                    (Some(e), _) => {
                        let code = e.get("code").and_then(Value::as_str).unwrap_or("unknown");
                        let message = e
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("no message");
                        format!("{label} could not complete the response ({code}): {message}")
                    }
                    (None, Some(reason)) => {
                        format!("{label} could not complete the response (incomplete: {reason})")
                    }
                    (None, None) => {
                        format!("{label} could not complete the response (no error details given)")
                    }
                });
            }
            _ => {}
        }
        Ok(())
    }

    /// Streams the next state of a custom tool call's input; its arguments become `{"input": next}`.
    fn advance_custom_input(
        &mut self,
        index: usize,
        next: &str,
        close: bool,
        output: &mut Output,
    ) -> Result<(), String> {
        let custom = self.custom_inputs.entry(index).or_default();
        if let Some(delta) = custom.advance(next, close)? {
            output.toolcall_delta(index, &delta, Some(json!({INPUT_PROPERTY: next})));
        }
        Ok(())
    }

    fn finalize(&mut self, model: &Model, response: &Value, output: &mut Output) {
        self.saw_terminal = true;
        if let Some(items) = response.get("output").and_then(Value::as_array) {
            for item in items {
                let encrypted = item
                    .get("encrypted_content")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty());
                let (Some("reasoning"), Some(encrypted), Some(id)) = (
                    item.get("type").and_then(Value::as_str),
                    encrypted,
                    item.get("id").and_then(Value::as_str),
                ) else {
                    continue;
                };
                let Some(&index) = self.reasoning_by_id.get(id) else {
                    continue;
                };
                output.with_thinking(index, |block| {
                    let Some(stored) = block
                        .thinking_signature
                        .as_deref()
                        .and_then(|s| serde_json::from_str::<Value>(s).ok())
                    else {
                        return;
                    };
                    if stored
                        .get("encrypted_content")
                        .is_some_and(|v| !v.is_null() && v != "")
                    {
                        return;
                    }
                    if let Value::Object(mut map) = stored {
                        map.insert("encrypted_content".into(), json!(encrypted));
                        block.thinking_signature = Some(Value::Object(map).to_string());
                    }
                });
            }
        }
        if let Some(id) = response.get("id").and_then(Value::as_str) {
            output.message.response_id = Some(id.into());
        }
        if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
            let n = |p: &str| usage.pointer(p).and_then(Value::as_u64).unwrap_or(0);
            let cached = n("/input_tokens_details/cached_tokens");
            let cache_write = n("/input_tokens_details/cache_write_tokens");
            output.message.usage = Usage {
                input: n("/input_tokens").saturating_sub(cached + cache_write),
                output: n("/output_tokens"),
                cache_read: cached,
                cache_write,
                reasoning: Some(n("/output_tokens_details/reasoning_tokens")),
                total_tokens: n("/total_tokens"),
                ..Usage::default()
            };
        }
        calculate_cost(model, &mut output.message.usage);
        if let Some(tier) = response.get("service_tier").and_then(Value::as_str) {
            apply_service_tier_pricing(model, &mut output.message.usage, tier);
        }
        let status = response.get("status").and_then(Value::as_str);
        let reason = response
            .pointer("/incomplete_details/reason")
            .and_then(Value::as_str);
        output.message.raw_stop_reason = match (status, reason) {
            (Some(s), Some(r)) => Some(format!("{s}.{r}")),
            (Some(s), None) => Some(s.to_string()),
            (None, _) => None,
        };
        let (stop, error) = match status {
            None | Some("completed" | "in_progress" | "queued") => (StopReason::Stop, None),
            Some("incomplete") if reason == Some("max_output_tokens") => (StopReason::Length, None),
            Some("incomplete") => (
                StopReason::Error,
                Some(reason.map_or_else(
                    || "Response incomplete without a provider reason".to_string(),
                    |r| format!("Response incomplete: {r}"),
                )),
            ),
            Some("failed" | "cancelled") => (StopReason::Error, None),
            Some(other) => (
                StopReason::Error,
                Some(format!("Unhandled stop reason: {other}")),
            ),
        };
        output.message.stop_reason = stop;
        output.message.error_message = error;
        if stop == StopReason::Stop && output.has_tool_call() {
            output.message.stop_reason = StopReason::ToolUse;
        }
    }
}
