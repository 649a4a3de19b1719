//! The lean stream: the wire as a subscriber that rebuilds every message from its deltas (the window) asks for
//! it. Such a subscriber already holds the text of every block it was streamed, so sending that text again at the
//! end of the message (`text_end`, `message_end`) and of the run (`turn_end`, `agent_end`) costs it the whole
//! answer three or four times over, in one burst, just as the answer finishes: at 10 MB, seconds of copying and
//! parsing in a window that should be answering its user. A lean stream sends each block's text once.
//!
//! Contract, per conversation, against the plain wire (everything not named here is the same):
//! - `text_end` and `thinking_end` omit `content` when it is exactly what this subscriber was sent for the block
//!   (its `*_start` block's text, then its deltas).
//! - An assistant `message_end`'s text or thinking block whose text is exactly what this subscriber was sent
//!   carries `"streamed": true` and an empty `text` (`thinking`); every other field is as sent.
//! - `turn_end` carries only its `type` (its messages were each in a `message_end`), and so does `agent_end`.
//!
//! "Exactly what was sent" is checked by length: a block's final text is the concatenation of its start text and
//! its deltas (pi-ai's streaming contract), so equal lengths mean equal texts, and a block this subscriber did not
//! see from its start (it subscribed mid-answer) keeps its text.

use std::collections::HashMap;

use pi_agent::{AgentEvent, AgentMessage};
use pi_ai::{AssistantBlock, AssistantMessage, AssistantMessageEvent};
use serde::{Serialize, Serializer};
use serde_json::{Value, json};

use crate::store::ConversationId;
use crate::wire::envelope::{
    Envelope, EnvelopePayload, HostNotice, serialize_envelope, started_block,
};

/// An envelope as a lean subscriber gets it.
#[derive(Clone, Debug, PartialEq)]
pub enum LeanEnvelope {
    /// Sent as on the plain wire.
    Whole(Envelope),
    /// The envelope's header with this event in place of its own.
    Slimmed {
        /// The envelope (its event is not sent).
        envelope: Envelope,
        /// The event's lean JSON.
        event: Value,
    },
}

impl Serialize for LeanEnvelope {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            LeanEnvelope::Whole(envelope) => envelope.serialize(serializer),
            LeanEnvelope::Slimmed { envelope, event } => {
                serialize_envelope(envelope, Some(event), serializer)
            }
        }
    }
}

/// Turns a subscriber's envelopes, in their order, into lean ones: it remembers how much text of each block of
/// the assistant message in progress was sent, per conversation.
#[derive(Debug, Default)]
pub struct LeanProjection {
    /// Per conversation: the bytes sent of each block of its streaming assistant message (`None`: a block not
    /// seen from its start, or not text).
    sent: HashMap<Option<ConversationId>, Vec<Option<usize>>>,
}

impl LeanProjection {
    /// A projection that has seen nothing yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The lean form of the subscriber's next envelope.
    pub fn project(&mut self, envelope: &Envelope) -> LeanEnvelope {
        let key = &envelope.conversation_id;
        let event = match &envelope.payload {
            EnvelopePayload::Notice(HostNotice::Idle) => {
                self.sent.remove(key);
                None
            }
            EnvelopePayload::Notice(_) => None,
            EnvelopePayload::Event(event) => match &**event {
                AgentEvent::MessageStart {
                    message: AgentMessage::Assistant(message),
                } => {
                    let blocks = message
                        .content
                        .iter()
                        .map(|block| text_len(block))
                        .collect();
                    self.sent.insert(key.clone(), blocks);
                    None
                }
                AgentEvent::MessageUpdate {
                    assistant_message_event,
                    ..
                } => self.update(key, assistant_message_event),
                AgentEvent::MessageEnd {
                    message: AgentMessage::Assistant(message),
                } => {
                    let sent = self.sent.remove(key).unwrap_or_default();
                    lean_message_end(message, &sent)
                }
                AgentEvent::TurnEnd { .. } => Some(json!({"type": "turn_end"})),
                AgentEvent::AgentEnd { .. } => Some(json!({"type": "agent_end"})),
                _ => None,
            },
        };
        match event {
            Some(event) => LeanEnvelope::Slimmed {
                envelope: envelope.clone(),
                event,
            },
            None => LeanEnvelope::Whole(envelope.clone()),
        }
    }

    /// Counts what a block update sends; the lean event of a `*_end` whose text was all sent.
    fn update(
        &mut self,
        key: &Option<ConversationId>,
        event: &AssistantMessageEvent,
    ) -> Option<Value> {
        let blocks = self.sent.get_mut(key)?;
        match event {
            AssistantMessageEvent::TextStart { content_index, .. }
            | AssistantMessageEvent::ThinkingStart { content_index, .. } => {
                set(blocks, *content_index, started_block(event).and_then(text_len));
                None
            }
            AssistantMessageEvent::TextDelta {
                content_index,
                delta,
                ..
            }
            | AssistantMessageEvent::ThinkingDelta {
                content_index,
                delta,
                ..
            } => {
                if let Some(Some(sent)) = blocks.get_mut(*content_index) {
                    *sent += delta.len();
                }
                None
            }
            AssistantMessageEvent::TextEnd {
                content_index,
                content,
                ..
            }
            | AssistantMessageEvent::ThinkingEnd {
                content_index,
                content,
                ..
            } => (blocks.get(*content_index) == Some(&Some(content.len()))).then(|| {
                json!({
                    "type": "message_update",
                    "assistantMessageEvent": {"type": event.event_type(), "contentIndex": content_index},
                })
            }),
            _ => None,
        }
    }
}

/// The length of a text or thinking block's text.
fn text_len(block: &AssistantBlock) -> Option<usize> {
    match block {
        AssistantBlock::Text(text) => Some(text.text.len()),
        AssistantBlock::Thinking(thinking) => Some(thinking.thinking.len()),
        AssistantBlock::ToolCall(_) => None,
    }
}

fn set(blocks: &mut Vec<Option<usize>>, index: usize, value: Option<usize>) {
    if blocks.len() <= index {
        blocks.resize(index + 1, None);
    }
    blocks[index] = value;
}

/// A `message_end` whose blocks sent in full are marked `streamed`, or `None` when none was.
fn lean_message_end(message: &AssistantMessage, sent: &[Option<usize>]) -> Option<Value> {
    let streamed: Vec<bool> = message
        .content
        .iter()
        .enumerate()
        .map(|(index, block)| {
            let length = text_len(block);
            length.is_some() && sent.get(index).copied().flatten() == length
        })
        .collect();
    if !streamed.contains(&true) {
        return None;
    }
    let mut lean = message.clone();
    for (block, streamed) in lean.content.iter_mut().zip(&streamed) {
        match std::sync::Arc::make_mut(block) {
            AssistantBlock::Text(text) if *streamed => text.text = Default::default(),
            AssistantBlock::Thinking(thinking) if *streamed => {
                thinking.thinking = Default::default();
            }
            _ => {}
        }
    }
    let mut message = serde_json::to_value(AgentMessage::Assistant(lean.into())).ok()?;
    if let Some(Value::Array(blocks)) = message.get_mut("content") {
        for (block, streamed) in blocks.iter_mut().zip(streamed) {
            if let (true, Value::Object(fields)) = (streamed, block) {
                fields.insert("streamed".to_owned(), Value::Bool(true));
            }
        }
    }
    Some(json!({"type": "message_end", "message": message}))
}
