//! What tests and benchmarks write through the app's own store before the app starts: where its database lies in
//! a home, and pi's JSON of the messages (a question, an answer of the loopback model, a tool's result).

use std::path::{Path, PathBuf};

use desktop_host::store::DATABASE_FILE_NAME;
use serde_json::{Value, json};

/// The path of the app's database in `home` (as the app sees it there: its data folder under
/// `$XDG_DATA_HOME`), with the folders above it made.
pub(crate) fn database_in(home: &Path) -> PathBuf {
    let data = home.join(".local/share/dev.pi.desktop");
    std::fs::create_dir_all(&data).expect("the app's data folder can be made in the home");
    data.join(DATABASE_FILE_NAME)
}

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
