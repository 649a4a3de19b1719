//! Chat-completion chunk objects as an OpenAI-compatible server streams them: text answers, a tool call, and
//! the pieces of an answer fed one at a time.

use serde_json::{Value, json};

/// The model the chunks report; a client asking for this id sees no other model in the answer.
pub const MODEL: &str = "test-model";

fn chunk(delta: Value, finish_reason: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    })
}

/// The last chunk of a complete text answer (`finish_reason: "stop"`).
pub(crate) fn stop_chunk() -> Value {
    chunk(json!({}), Some("stop"))
}

/// A complete text answer streaming `parts`.
pub fn text_chunks(parts: &[&str]) -> Vec<Value> {
    let mut chunks = unfinished_text_chunks(parts);
    chunks.push(stop_chunk());
    chunks
}

/// The opening chunks of a text answer, without a finish reason (for an answer held open or fed on).
pub fn unfinished_text_chunks(parts: &[&str]) -> Vec<Value> {
    let mut chunks = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    chunks.extend(parts.iter().map(|part| text_delta(part)));
    chunks
}

/// One text delta, for a fed answer.
pub fn text_delta(text: &str) -> Value {
    chunk(json!({"content": text}), None)
}

/// An answer that calls one tool, its JSON arguments streamed in `argument_parts`.
pub fn tool_call_chunks(call_id: &str, name: &str, argument_parts: &[&str]) -> Vec<Value> {
    let mut chunks = vec![chunk(
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
        ]}),
        None,
    )];
    chunks.extend(argument_parts.iter().map(|part| {
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": part}}]}),
            None,
        )
    }));
    chunks.push(chunk(json!({}), Some("tool_calls")));
    chunks
}
