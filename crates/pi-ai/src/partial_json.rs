//! Tolerant parsing of streamed tool-call arguments (pi's `parseStreamingJson`, spec 4.5).

use serde_json::{Map, Value};

/// Parses possibly incomplete JSON text; never fails. Empty or whitespace-only text gives `{}`.
pub fn parse_streaming_json(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::Object(Map::new()))
}
