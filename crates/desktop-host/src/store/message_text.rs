//! The readable text of a pi message, for titles, search and export.
//!
//! Messages are pi JSON (`role` at the top, `content` a string or a list of typed blocks). Text blocks count;
//! thinking, images and tool-call arguments do not, so search finds what the conversation says, not its plumbing.

use serde_json::Value;

/// The message's `role`, if it has a string one.
pub(crate) fn role_of(message: &Value) -> Option<&str> {
    message.get("role").and_then(Value::as_str)
}

/// The text a person reads in the message: a string `content`, or its `text` blocks joined by blank lines.
pub(crate) fn readable_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(blocks)) => {
            let texts: Vec<&str> = blocks.iter().filter_map(text_of_block).collect();
            texts.join("\n\n")
        }
        _ => String::new(),
    }
}

/// The text of a `text` block; `None` for any other block.
pub(crate) fn text_of_block(block: &Value) -> Option<&str> {
    if block.get("type").and_then(Value::as_str) == Some("text") {
        block.get("text").and_then(Value::as_str)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn string_content_is_the_text() {
        assert_eq!(
            readable_text(&json!({"role": "user", "content": "hi there"})),
            "hi there"
        );
    }

    #[test]
    fn only_text_blocks_count() {
        let message = json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "secret plan"},
            {"type": "text", "text": "first"},
            {"type": "toolCall", "id": "1", "name": "ls", "arguments": {"path": "x"}},
            {"type": "text", "text": "second"},
        ]});
        assert_eq!(readable_text(&message), "first\n\nsecond");
    }
}
