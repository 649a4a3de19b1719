//! pi's JSON of the messages that tests and benchmarks write through the app's own store before the app starts:
//! a question, an answer of the loopback model (text or a tool call), and a tool's result.

use serde_json::{Value, json};

/// A user message of one text block.
pub(crate) fn user(text: &str, timestamp: i64) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": timestamp})
}

/// An assistant message of `content` blocks from the loopback model, with token counts and no price.
pub(crate) fn assistant(content: Value, stop_reason: &str, timestamp: i64) -> Value {
    json!({
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": "openai",
        "model": "test-model",
        "usage": {"input": 120, "output": 80, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 200,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": stop_reason,
        "timestamp": timestamp,
    })
}

/// The successful result of tool call `call_id` to `tool_name`: one text block.
pub(crate) fn tool_result(call_id: &str, tool_name: &str, text: &str, timestamp: i64) -> Value {
    json!({"role": "toolResult", "toolCallId": call_id, "toolName": tool_name,
           "content": [{"type": "text", "text": text}], "isError": false, "timestamp": timestamp})
}
