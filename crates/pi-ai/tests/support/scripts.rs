//! SSE response scripts per API for the fault tests and the benchmark: the provider's wire events for text,
//! thinking, tool calls and stop reasons, in the replay server's script format.

use serde_json::{Value, json};

/// The three HTTP APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wire {
    Completions,
    Responses,
    Anthropic,
}

pub(crate) const ALL: [Wire; 3] = [Wire::Completions, Wire::Responses, Wire::Anthropic];

/// How a scripted answer ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// Natural end.
    Stop,
    /// Output limit.
    Length,
    /// Tool use (completions: `tool_calls`; anthropic: `tool_use`; responses: completed + tool call).
    ToolUse,
    /// A filtered / refused answer (completions `content_filter`, anthropic `refusal`,
    /// responses `incomplete` + `content_filter`).
    Refused,
    /// The body ends without any finish information.
    Missing,
}

/// A tool call in a script: id, name and its argument text cut into deltas.
pub(crate) struct Call<'a> {
    pub(crate) id: &'a str,
    pub(crate) name: &'a str,
    pub(crate) args: &'a [&'a str],
}

impl Wire {
    pub(crate) fn api(self) -> &'static str {
        match self {
            Wire::Completions => "openai-completions",
            Wire::Responses => "openai-responses",
            Wire::Anthropic => "anthropic-messages",
        }
    }

    /// SSE entries of an answer with optional thinking, text and tool calls. Usage: 100 in, 20 out.
    pub(crate) fn answer(
        self,
        thinking: &[&str],
        text: &[&str],
        calls: &[Call<'_>],
        ending: Ending,
    ) -> Vec<Value> {
        match self {
            Wire::Completions => completions(thinking, text, calls, ending),
            Wire::Responses => responses(thinking, text, calls, ending),
            Wire::Anthropic => anthropic(thinking, text, calls, ending),
        }
    }

    /// One 200 response with these SSE entries, written `chunk_bytes` at a time without delays.
    pub(crate) fn ok(self, events: Vec<Value>, chunk_bytes: usize) -> Value {
        json!({"status": 200, "chunk_bytes": chunk_bytes, "delay_ms": 0, "events": events})
    }

    /// A plain error response as the provider would send it.
    pub(crate) fn error(self, status: u16, message: &str) -> Value {
        let body = match self {
            Wire::Anthropic => {
                json!({"type": "error", "error": {"type": "api_error", "message": message}})
            }
            _ => json!({"error": {"message": message, "type": "api_error", "code": null}}),
        };
        json!({"status": status, "body": body.to_string()})
    }
}

fn oc(delta: Value, finish: Option<&str>) -> Value {
    json!({"data": {"id": "chatcmpl-t", "object": "chat.completion.chunk", "model": "fake-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}})
}

fn completions(thinking: &[&str], text: &[&str], calls: &[Call<'_>], ending: Ending) -> Vec<Value> {
    let mut out = vec![oc(json!({"role": "assistant", "content": ""}), None)];
    for t in thinking {
        out.push(oc(json!({"reasoning_content": t}), None));
    }
    for t in text {
        out.push(oc(json!({"content": t}), None));
    }
    for (i, call) in calls.iter().enumerate() {
        out.push(oc(
            json!({"tool_calls": [{"index": i, "id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": ""}}]}),
            None,
        ));
        for a in call.args {
            out.push(oc(
                json!({"tool_calls": [{"index": i, "function": {"arguments": a}}]}),
                None,
            ));
        }
    }
    let finish = match ending {
        Ending::Stop => Some("stop"),
        Ending::Length => Some("length"),
        Ending::ToolUse => Some("tool_calls"),
        Ending::Refused => Some("content_filter"),
        Ending::Missing => None,
    };
    if let Some(finish) = finish {
        out.push(oc(json!({}), Some(finish)));
        out.push(json!({"data": {"id": "chatcmpl-t", "object": "chat.completion.chunk", "model": "fake-model",
            "choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}}));
        out.push(json!({"data": "[DONE]"}));
    }
    out
}

fn an(event: &str, data: Value) -> Value {
    json!({"event": event, "data": data})
}

fn anthropic(thinking: &[&str], text: &[&str], calls: &[Call<'_>], ending: Ending) -> Vec<Value> {
    let mut out = vec![an(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_t", "type": "message", "role": "assistant",
            "model": "fake-model", "content": [], "stop_reason": null,
            "usage": {"input_tokens": 100, "output_tokens": 1}}}),
    )];
    out.push(an("ping", json!({"type": "ping"})));
    let mut index = 0;
    if !thinking.is_empty() {
        out.push(an(
            "content_block_start",
            json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
        ));
        for t in thinking {
            out.push(an(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "thinking_delta", "thinking": t}}),
            ));
        }
        out.push(an(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index,
            "delta": {"type": "signature_delta", "signature": "sig-1"}}),
        ));
        out.push(an(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    if !text.is_empty() {
        out.push(an(
            "content_block_start",
            json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "text", "text": ""}}),
        ));
        for t in text {
            out.push(an(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "text_delta", "text": t}}),
            ));
        }
        out.push(an(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    for call in calls {
        out.push(an(
            "content_block_start",
            json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}}),
        ));
        for a in call.args {
            out.push(an(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": a}}),
            ));
        }
        out.push(an(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    let reason = match ending {
        Ending::Stop => "end_turn",
        Ending::Length => "max_tokens",
        Ending::ToolUse => "tool_use",
        Ending::Refused => "refusal",
        Ending::Missing => return out,
    };
    out.push(an(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": reason},
        "usage": {"output_tokens": 20}}),
    ));
    out.push(an("message_stop", json!({"type": "message_stop"})));
    out
}

fn rs(data: Value) -> Value {
    let kind = data
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    json!({"event": kind, "data": data})
}

fn responses(thinking: &[&str], text: &[&str], calls: &[Call<'_>], ending: Ending) -> Vec<Value> {
    let mut out = vec![rs(
        json!({"type": "response.created", "response": {"id": "resp_t", "status": "in_progress"}}),
    )];
    let mut oi = 0;
    if !thinking.is_empty() {
        out.push(rs(
            json!({"type": "response.output_item.added", "output_index": oi,
            "item": {"id": "rs_t", "type": "reasoning", "summary": []}}),
        ));
        for t in thinking {
            out.push(rs(
                json!({"type": "response.reasoning_summary_text.delta", "output_index": oi,
                "summary_index": 0, "delta": t}),
            ));
        }
        out.push(rs(json!({"type": "response.reasoning_summary_part.done", "output_index": oi, "summary_index": 0})));
        out.push(rs(
            json!({"type": "response.output_item.done", "output_index": oi,
            "item": {"id": "rs_t", "type": "reasoning",
                "summary": [{"type": "summary_text", "text": thinking.concat()}]}}),
        ));
        oi += 1;
    }
    if !text.is_empty() {
        out.push(rs(
            json!({"type": "response.output_item.added", "output_index": oi,
            "item": {"id": "msg_t", "type": "message", "role": "assistant", "content": []}}),
        ));
        for t in text {
            out.push(rs(json!({"type": "response.output_text.delta", "output_index": oi, "content_index": 0, "delta": t})));
        }
        out.push(rs(
            json!({"type": "response.output_item.done", "output_index": oi,
            "item": {"id": "msg_t", "type": "message", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text.concat(), "annotations": []}]}}),
        ));
        oi += 1;
    }
    for call in calls {
        let item_id = format!("fc_{}", call.id);
        out.push(rs(json!({"type": "response.output_item.added", "output_index": oi,
            "item": {"id": item_id, "type": "function_call", "call_id": call.id, "name": call.name, "arguments": ""}})));
        for a in call.args {
            out.push(rs(json!({"type": "response.function_call_arguments.delta", "output_index": oi, "delta": a})));
        }
        out.push(rs(
            json!({"type": "response.output_item.done", "output_index": oi,
            "item": {"id": item_id, "type": "function_call", "call_id": call.id, "name": call.name,
                "arguments": call.args.concat()}}),
        ));
        oi += 1;
    }
    let usage = json!({"input_tokens": 100, "output_tokens": 20, "total_tokens": 120});
    let response = match ending {
        Ending::Stop | Ending::ToolUse => {
            json!({"id": "resp_t", "status": "completed", "usage": usage})
        }
        Ending::Length => json!({"id": "resp_t", "status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"}, "usage": usage}),
        Ending::Refused => json!({"id": "resp_t", "status": "incomplete",
            "incomplete_details": {"reason": "content_filter"}, "usage": usage}),
        Ending::Missing => return out,
    };
    let kind = if response.get("status").and_then(Value::as_str) == Some("completed") {
        "response.completed"
    } else {
        "response.incomplete"
    };
    out.push(rs(json!({"type": kind, "response": response})));
    out
}
