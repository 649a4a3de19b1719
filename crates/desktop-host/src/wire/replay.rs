//! Rebuilding the transcript from wire envelopes, exactly as the UI's reducer does: `message_start` opens the
//! streaming message, `message_update` deltas grow it, `message_end` replaces it with the full message and
//! appends that to the transcript.
//!
//! Replay works on the JSON (what really crosses the wire), and it checks the wire's promises as it goes:
//! sequence numbers without gaps, the protocol version, and that the text and thinking rebuilt from deltas equal
//! the final message's. Tests use it to prove that replaying the envelopes gives exactly the Agent's messages.

use serde_json::{Map, Value, json};

use crate::wire::envelope::PROTOCOL_VERSION;

/// The transcript as rebuilt from envelopes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WireReplay {
    /// Completed messages, in order.
    pub messages: Vec<Value>,
    /// The message between its `message_start` and `message_end`, as rebuilt so far.
    pub streaming: Option<Value>,
    /// The notices seen, in order.
    pub notices: Vec<Value>,
    last_seq: u64,
}

/// An envelope that breaks the wire's promises.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    /// Not an envelope of this protocol version.
    #[error("envelope {0} is not a version {PROTOCOL_VERSION} envelope")]
    NotAnEnvelope(String),
    /// A sequence number was skipped or repeated.
    #[error("expected seq {expected}, got {got}")]
    SequenceGap {
        /// The next number expected.
        expected: u64,
        /// The number received.
        got: u64,
    },
    /// A delta arrived for a message or block that was not started.
    #[error("update without a streaming message or block: {0}")]
    OrphanUpdate(String),
    /// The text rebuilt from deltas differs from the final message's.
    #[error("block {index} rebuilt from deltas as {rebuilt:?} but the final message has {fin:?}")]
    DeltaMismatch {
        /// Content index.
        index: usize,
        /// What the deltas gave.
        rebuilt: String,
        /// What `message_end` said.
        fin: String,
    },
}

impl WireReplay {
    /// An empty replay.
    pub fn new() -> WireReplay {
        WireReplay::default()
    }

    /// Applies one envelope (as JSON).
    pub fn apply(&mut self, envelope: &Value) -> Result<(), ReplayError> {
        let not_envelope = || ReplayError::NotAnEnvelope(envelope.to_string());
        if envelope.get("v").and_then(Value::as_u64) != Some(u64::from(PROTOCOL_VERSION)) {
            return Err(not_envelope());
        }
        let seq = envelope
            .get("seq")
            .and_then(Value::as_u64)
            .ok_or_else(not_envelope)?;
        if seq != self.last_seq + 1 {
            return Err(ReplayError::SequenceGap {
                expected: self.last_seq + 1,
                got: seq,
            });
        }
        self.last_seq = seq;
        match envelope.get("kind").and_then(Value::as_str) {
            Some("notice") => {
                self.notices
                    .push(envelope.get("notice").cloned().ok_or_else(not_envelope)?);
                Ok(())
            }
            Some("event") => self.apply_event(envelope.get("event").ok_or_else(not_envelope)?),
            Some(_) | None => Err(not_envelope()),
        }
    }

    fn apply_event(&mut self, event: &Value) -> Result<(), ReplayError> {
        match event.get("type").and_then(Value::as_str) {
            Some("message_start") => {
                self.streaming = event.get("message").cloned();
                Ok(())
            }
            Some("message_update") => {
                let update = event
                    .get("assistantMessageEvent")
                    .cloned()
                    .unwrap_or(Value::Null);
                let streaming = self
                    .streaming
                    .as_mut()
                    .ok_or_else(|| ReplayError::OrphanUpdate(update.to_string()))?;
                apply_update(streaming, &update)
            }
            Some("message_end") => {
                let message = event.get("message").cloned().unwrap_or(Value::Null);
                if let Some(rebuilt) = self.streaming.take() {
                    check_rebuilt(&rebuilt, &message)?;
                }
                self.messages.push(message);
                Ok(())
            }
            // Other events carry no transcript change of their own.
            Some(_) | None => Ok(()),
        }
    }
}

fn apply_update(streaming: &mut Value, update: &Value) -> Result<(), ReplayError> {
    let orphan = || ReplayError::OrphanUpdate(update.to_string());
    let kind = update
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let index = update
        .get("contentIndex")
        .and_then(Value::as_u64)
        .and_then(|idx| usize::try_from(idx).ok());
    let content = streaming
        .get_mut("content")
        .and_then(Value::as_array_mut)
        .ok_or_else(orphan)?;
    let Some(index) = index else { return Ok(()) };
    let text_of = |value: &Value, key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    match kind {
        "text_start" | "thinking_start" | "toolcall_start" => {
            let default_block = match kind {
                "text_start" => json!({"type": "text", "text": ""}),
                "thinking_start" => json!({"type": "thinking", "thinking": ""}),
                _ => json!({"type": "toolCall", "id": "", "name": "", "arguments": {}}),
            };
            let block = update.get("block").cloned().unwrap_or(default_block);
            while content.len() <= index {
                content.push(Value::Null);
            }
            content[index] = block;
        }
        "text_delta" | "thinking_delta" => {
            let key = if kind == "text_delta" {
                "text"
            } else {
                "thinking"
            };
            let block = content
                .get_mut(index)
                .and_then(Value::as_object_mut)
                .ok_or_else(orphan)?;
            let grown = format!(
                "{}{}",
                block.get(key).and_then(Value::as_str).unwrap_or_default(),
                text_of(update, "delta")
            );
            block.insert(key.to_owned(), Value::String(grown));
        }
        "text_end" | "thinking_end" => {
            let key = if kind == "text_end" {
                "text"
            } else {
                "thinking"
            };
            let block = content
                .get_mut(index)
                .and_then(Value::as_object_mut)
                .ok_or_else(orphan)?;
            block.insert(key.to_owned(), Value::String(text_of(update, "content")));
        }
        "toolcall_delta" => {
            // Arguments stream as raw JSON text; the UI shows them once `toolcall_end` gives the parsed call.
            let block = content
                .get_mut(index)
                .and_then(Value::as_object_mut)
                .ok_or_else(orphan)?;
            let grown = format!("{}{}", scratch(block), text_of(update, "delta"));
            block.insert("partialJson".to_owned(), Value::String(grown));
        }
        "toolcall_end" => {
            let tool_call = update.get("toolCall").cloned().ok_or_else(orphan)?;
            let slot = content.get_mut(index).ok_or_else(orphan)?;
            *slot = tool_call;
        }
        _ => {}
    }
    Ok(())
}

fn scratch(block: &Map<String, Value>) -> String {
    block
        .get("partialJson")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Text and thinking rebuilt from deltas must equal the final message's.
fn check_rebuilt(rebuilt: &Value, fin: &Value) -> Result<(), ReplayError> {
    let (Some(rebuilt_blocks), Some(final_blocks)) = (
        rebuilt.get("content").and_then(Value::as_array),
        fin.get("content").and_then(Value::as_array),
    ) else {
        return Ok(());
    };
    for (index, (rebuilt_block, final_block)) in rebuilt_blocks.iter().zip(final_blocks).enumerate()
    {
        for key in ["text", "thinking"] {
            if let (Some(rebuilt_text), Some(final_text)) = (
                rebuilt_block.get(key).and_then(Value::as_str),
                final_block.get(key).and_then(Value::as_str),
            ) && rebuilt_text != final_text
            {
                return Err(ReplayError::DeltaMismatch {
                    index,
                    rebuilt: rebuilt_text.to_owned(),
                    fin: final_text.to_owned(),
                });
            }
        }
    }
    Ok(())
}
