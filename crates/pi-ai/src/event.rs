//! [`AssistantMessageEvent`]: the event protocol of one streamed assistant response (spec 1.5).
//!
//! Every non-terminal event carries `partial`, an immutable snapshot of the response right after the event.
//! Successful streams emit `start` first and end with exactly one `done`; a failure ends with one `error`,
//! possibly without `start` (setup, auth and HTTP failures happen before `start`).

use std::sync::Arc;

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use crate::content::{ToolCall, tagged_tool_call};
use crate::message::{AssistantMessage, StopReason};

/// Stop reasons a `done` event may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DoneReason {
    /// Natural end.
    Stop,
    /// Output token limit reached.
    Length,
    /// The model wants tools to run.
    ToolUse,
    /// A deferred handle was returned.
    Deferred,
}

impl From<DoneReason> for StopReason {
    fn from(reason: DoneReason) -> Self {
        match reason {
            DoneReason::Stop => StopReason::Stop,
            DoneReason::Length => StopReason::Length,
            DoneReason::ToolUse => StopReason::ToolUse,
            DoneReason::Deferred => StopReason::Deferred,
        }
    }
}

/// Stop reasons an `error` event may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ErrorReason {
    /// The request failed.
    Error,
    /// The request was cancelled.
    Aborted,
}

impl From<ErrorReason> for StopReason {
    fn from(reason: ErrorReason) -> Self {
        match reason {
            ErrorReason::Error => StopReason::Error,
            ErrorReason::Aborted => StopReason::Aborted,
        }
    }
}

/// One event of an assistant response stream, tagged by `type` exactly as pi tags it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all_fields = "camelCase")]
pub enum AssistantMessageEvent {
    /// The response began (stopReason `pending`).
    #[serde(rename = "start")]
    Start {
        /// The response so far.
        partial: Arc<AssistantMessage>,
    },
    /// A new, empty text block at `content_index`.
    #[serde(rename = "text_start")]
    TextStart {
        /// Block index in `partial.content`.
        content_index: usize,
        /// The response so far.
        partial: Arc<AssistantMessage>,
    },
    /// `delta` was appended to the text block.
    #[serde(rename = "text_delta")]
    TextDelta {
        /// Block index.
        content_index: usize,
        /// Appended text.
        delta: String,
        /// The response so far.
        partial: Arc<AssistantMessage>,
    },
    /// The text block is complete; `content` is its full text.
    #[serde(rename = "text_end")]
    TextEnd {
        /// Block index.
        content_index: usize,
        /// Full text of the block.
        content: String,
        /// The response so far.
        partial: Arc<AssistantMessage>,
    },
    /// A new thinking block (redacted thinking may be complete at start).
    #[serde(rename = "thinking_start")]
    ThinkingStart {
        /// Block index.
        content_index: usize,
        /// The response so far.
        partial: Arc<AssistantMessage>,
    },
    /// `delta` was appended to the thinking block.
    #[serde(rename = "thinking_delta")]
    ThinkingDelta {
        /// Block index.
        content_index: usize,
        /// Appended text.
        delta: String,
        /// The response so far.
        partial: Arc<AssistantMessage>,
    },
    /// The thinking block is complete.
    #[serde(rename = "thinking_end")]
    ThinkingEnd {
        /// Block index.
        content_index: usize,
        /// Full thinking text of the block.
        content: String,
        /// The response so far.
        partial: Arc<AssistantMessage>,
    },
    /// A new tool call block (id/name usually known; arguments `{}` or provider-specific).
    #[serde(rename = "toolcall_start")]
    ToolcallStart {
        /// Block index.
        content_index: usize,
        /// The response so far.
        partial: Arc<AssistantMessage>,
    },
    /// Raw argument JSON text grew by `delta`; the block's arguments hold the best-effort parse.
    #[serde(rename = "toolcall_delta")]
    ToolcallDelta {
        /// Block index.
        content_index: usize,
        /// Raw JSON text chunk.
        delta: String,
        /// The response so far.
        partial: Arc<AssistantMessage>,
    },
    /// Arguments are final (parsed, not validated).
    #[serde(rename = "toolcall_end")]
    ToolcallEnd {
        /// Block index.
        content_index: usize,
        /// The final block (written with its `"type":"toolCall"` tag). Boxed: every event moves through several
        /// queues and futures, and this is the only variant that would otherwise make all of them large.
        #[serde(with = "crate::content::tagged_tool_call::boxed")]
        tool_call: Box<ToolCall>,
        /// The response so far.
        partial: Arc<AssistantMessage>,
    },
    /// Terminal success.
    #[serde(rename = "done")]
    Done {
        /// `stop`, `length`, `toolUse` or `deferred`.
        reason: DoneReason,
        /// The final message.
        message: Arc<AssistantMessage>,
    },
    /// Terminal failure.
    #[serde(rename = "error")]
    Error {
        /// `error` or `aborted`.
        reason: ErrorReason,
        /// The final message: partial content, stopReason = reason, errorMessage set.
        error: Arc<AssistantMessage>,
    },
}

impl AssistantMessageEvent {
    /// The wire tag (`"text_delta"`, …).
    pub fn event_type(&self) -> &'static str {
        match self {
            AssistantMessageEvent::Start { .. } => "start",
            AssistantMessageEvent::TextStart { .. } => "text_start",
            AssistantMessageEvent::TextDelta { .. } => "text_delta",
            AssistantMessageEvent::TextEnd { .. } => "text_end",
            AssistantMessageEvent::ThinkingStart { .. } => "thinking_start",
            AssistantMessageEvent::ThinkingDelta { .. } => "thinking_delta",
            AssistantMessageEvent::ThinkingEnd { .. } => "thinking_end",
            AssistantMessageEvent::ToolcallStart { .. } => "toolcall_start",
            AssistantMessageEvent::ToolcallDelta { .. } => "toolcall_delta",
            AssistantMessageEvent::ToolcallEnd { .. } => "toolcall_end",
            AssistantMessageEvent::Done { .. } => "done",
            AssistantMessageEvent::Error { .. } => "error",
        }
    }

    /// The message this event carries: `partial` for updates, the final message for `done` / `error`.
    pub fn message(&self) -> &AssistantMessage {
        self.shared_message()
    }

    /// The same message as [`AssistantMessageEvent::message`], shared: cloning it costs a reference count.
    pub fn shared_message(&self) -> &Arc<AssistantMessage> {
        match self {
            AssistantMessageEvent::Start { partial }
            | AssistantMessageEvent::TextStart { partial, .. }
            | AssistantMessageEvent::TextDelta { partial, .. }
            | AssistantMessageEvent::TextEnd { partial, .. }
            | AssistantMessageEvent::ThinkingStart { partial, .. }
            | AssistantMessageEvent::ThinkingDelta { partial, .. }
            | AssistantMessageEvent::ThinkingEnd { partial, .. }
            | AssistantMessageEvent::ToolcallStart { partial, .. }
            | AssistantMessageEvent::ToolcallDelta { partial, .. }
            | AssistantMessageEvent::ToolcallEnd { partial, .. } => partial,
            AssistantMessageEvent::Done { message, .. } => message,
            AssistantMessageEvent::Error { error, .. } => error,
        }
    }

    /// True for `done` and `error`.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            AssistantMessageEvent::Done { .. } | AssistantMessageEvent::Error { .. }
        )
    }

    /// The final message of a terminal event (`done.message` / `error.error`).
    pub fn final_message(&self) -> Option<&AssistantMessage> {
        match self {
            AssistantMessageEvent::Done { message, .. } => Some(message),
            AssistantMessageEvent::Error { error, .. } => Some(error),
            AssistantMessageEvent::Start { .. }
            | AssistantMessageEvent::TextStart { .. }
            | AssistantMessageEvent::TextDelta { .. }
            | AssistantMessageEvent::TextEnd { .. }
            | AssistantMessageEvent::ThinkingStart { .. }
            | AssistantMessageEvent::ThinkingDelta { .. }
            | AssistantMessageEvent::ThinkingEnd { .. }
            | AssistantMessageEvent::ToolcallStart { .. }
            | AssistantMessageEvent::ToolcallDelta { .. }
            | AssistantMessageEvent::ToolcallEnd { .. } => None,
        }
    }

    /// A serializable view without `partial`: the form nested in the agent's `message_update` (spec 1.10).
    pub fn without_partial(&self) -> EventWithoutPartial<'_> {
        EventWithoutPartial(self)
    }
}

/// Serializes an [`AssistantMessageEvent`] without its `partial` field; see
/// [`AssistantMessageEvent::without_partial`]. Terminal events are written whole.
#[derive(Debug, Clone, Copy)]
pub struct EventWithoutPartial<'a>(pub &'a AssistantMessageEvent);

impl Serialize for EventWithoutPartial<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        const NAME: &str = "AssistantMessageEvent";
        let event = self.0;
        let tag = event.event_type();
        match event {
            AssistantMessageEvent::Start { .. } => {
                let mut state = serializer.serialize_struct(NAME, 1)?;
                state.serialize_field("type", tag)?;
                state.end()
            }
            AssistantMessageEvent::TextStart { content_index, .. }
            | AssistantMessageEvent::ThinkingStart { content_index, .. }
            | AssistantMessageEvent::ToolcallStart { content_index, .. } => {
                let mut state = serializer.serialize_struct(NAME, 2)?;
                state.serialize_field("type", tag)?;
                state.serialize_field("contentIndex", content_index)?;
                state.end()
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
            }
            | AssistantMessageEvent::ToolcallDelta {
                content_index,
                delta,
                ..
            } => {
                let mut state = serializer.serialize_struct(NAME, 3)?;
                state.serialize_field("type", tag)?;
                state.serialize_field("contentIndex", content_index)?;
                state.serialize_field("delta", delta)?;
                state.end()
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
            } => {
                let mut state = serializer.serialize_struct(NAME, 3)?;
                state.serialize_field("type", tag)?;
                state.serialize_field("contentIndex", content_index)?;
                state.serialize_field("content", content)?;
                state.end()
            }
            AssistantMessageEvent::ToolcallEnd {
                content_index,
                tool_call,
                ..
            } => {
                let mut state = serializer.serialize_struct(NAME, 3)?;
                state.serialize_field("type", tag)?;
                state.serialize_field("contentIndex", content_index)?;
                state.serialize_field("toolCall", &tagged_tool_call::Ref(tool_call))?;
                state.end()
            }
            AssistantMessageEvent::Done { .. } | AssistantMessageEvent::Error { .. } => {
                event.serialize(serializer)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_small_enough_to_move_cheaply() {
        // Every event moves through the stream queue, the consumer's futures and the agent's event; the
        // messages and the tool call are behind pointers so those moves stay register-sized.
        let size = std::mem::size_of::<AssistantMessageEvent>();
        assert!(size <= 64, "AssistantMessageEvent grew to {size} bytes");
    }
}
