//! The input of a `custom_tool_call` (a free-form tool input, not JSON arguments), streamed as the JSON text
//! of its arguments object `{"input": "<text>"}` the way pi-ai 0.85.1 streams it: the opening `{"input":"`
//! with the first piece, each later piece JSON-escaped, the closing `"}` when the input is complete.

/// The property a custom tool's input is stored under in the tool call's arguments.
pub(super) const INPUT_PROPERTY: &str = "input";

/// How much of a custom tool input has been streamed.
#[derive(Debug, Default)]
pub(super) struct CustomInput {
    input: String,
    started: bool,
    closed: bool,
}

impl CustomInput {
    /// The input received so far.
    pub(super) fn input(&self) -> &str {
        &self.input
    }

    /// Takes `next` (the whole input so far) and returns the arguments-JSON delta to stream, `None` when
    /// there is nothing to stream. `close` marks the input complete. `Err` names an input that shrank or
    /// changed after it was complete.
    pub(super) fn advance(&mut self, next: &str, close: bool) -> Result<Option<String>, String> {
        if self.closed {
            if close && next == self.input {
                return Ok(None);
            }
            return Err(format!(
                "custom tool input for property \"{INPUT_PROPERTY}\" changed after it was closed"
            ));
        }
        let Some(piece) = next.strip_prefix(self.input.as_str()) else {
            return Err(format!(
                "custom tool input for property \"{INPUT_PROPERTY}\" changed non-monotonically"
            ));
        };
        if !close && piece.is_empty() {
            return Ok(None);
        }
        let mut delta = String::new();
        if !self.started {
            delta.push_str(&format!("{{\"{INPUT_PROPERTY}\":\""));
            self.started = true;
        }
        let quoted = serde_json::Value::String(piece.to_string()).to_string();
        delta.push_str(&quoted[1..quoted.len() - 1]);
        self.input = next.to_string();
        if close {
            delta.push_str("\"}");
            self.closed = true;
        }
        Ok(Some(delta))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_stream_as_the_json_text_of_the_arguments_object() {
        let mut input = CustomInput::default();
        let mut text = String::new();
        for (next, close) in [("a\"b", false), ("a\"b\nc", false), ("a\"b\nc", true)] {
            if let Some(delta) = input.advance(next, close).unwrap() {
                text.push_str(&delta);
            }
        }
        assert_eq!(text, r#"{"input":"a\"b\nc"}"#);
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed, serde_json::json!({"input": "a\"b\nc"}));
    }

    #[test]
    fn an_input_that_changes_after_closing_is_an_error() {
        let mut input = CustomInput::default();
        input.advance("x", true).unwrap();
        assert_eq!(input.advance("x", true).unwrap(), None);
        assert!(input.advance("xy", false).is_err());
        let mut shrinking = CustomInput::default();
        shrinking.advance("abc", false).unwrap();
        assert!(shrinking.advance("ab", false).is_err());
    }
}
