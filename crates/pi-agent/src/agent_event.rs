//! [`AgentEvent`]: everything a run reports, in pi's exact JSON (spec 1.10), and [`AgentEventSink`], where the
//! loop sends it.
//!
//! Groups: agent lifecycle (`agent_start` … `agent_end`), turns (one assistant response plus its tool batch),
//! messages (every message entering the transcript; assistant messages stream `message_update`s), and tool
//! executions.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use pi_ai::{AssistantMessage, AssistantMessageEvent, ToolResultMessage};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::agent_message::AgentMessage;
use crate::agent_tool::AgentToolResult;

/// One event of an agent run.
#[allow(
    clippy::large_enum_variant,
    reason = "events are built once and shared behind an Arc"
)]
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    /// A run began; exactly one `AgentEnd` follows.
    AgentStart,
    /// The run's last event: every message it added (prompts included; pre-existing context excluded).
    AgentEnd {
        /// The new messages, in order.
        messages: Vec<AgentMessage>,
    },
    /// A turn (one assistant response plus its tool batch) begins.
    TurnStart,
    /// A turn ended.
    TurnEnd {
        /// The turn's assistant message (shared with the transcript).
        message: Arc<AssistantMessage>,
        /// Its tool results, in the assistant's source order.
        tool_results: Vec<ToolResultMessage>,
    },
    /// A message enters the transcript (prompts, injected messages, assistant responses, tool results).
    MessageStart {
        /// The message (for an assistant: the first partial).
        message: AgentMessage,
    },
    /// The streaming assistant message changed.
    MessageUpdate {
        /// The partial assistant message after the change: the same `Arc` as the model event's `partial`.
        message: AgentMessage,
        /// The model-layer event (serialized without its `partial`).
        assistant_message_event: AssistantMessageEvent,
    },
    /// A message is complete (assistant: the final message).
    MessageEnd {
        /// The message.
        message: AgentMessage,
    },
    /// A tool call is about to be prepared and run.
    ToolExecutionStart {
        /// Call id.
        tool_call_id: String,
        /// Tool name.
        tool_name: String,
        /// Raw arguments from the assistant message.
        args: Value,
    },
    /// A running tool reported progress.
    ToolExecutionUpdate {
        /// Call id.
        tool_call_id: String,
        /// Tool name.
        tool_name: String,
        /// Raw arguments from the assistant message.
        args: Value,
        /// What the tool reported, verbatim.
        partial_result: AgentToolResult,
    },
    /// A tool call finished; `is_error` marks an error result sent back to the model.
    ToolExecutionEnd {
        /// Call id.
        tool_call_id: String,
        /// Tool name.
        tool_name: String,
        /// The finalized result object, verbatim.
        result: AgentToolResult,
        /// True for an error result.
        is_error: bool,
    },
}

impl AgentEvent {
    /// The wire tag (`"message_update"`, …).
    pub fn event_type(&self) -> &'static str {
        match self {
            AgentEvent::AgentStart => "agent_start",
            AgentEvent::AgentEnd { .. } => "agent_end",
            AgentEvent::TurnStart => "turn_start",
            AgentEvent::TurnEnd { .. } => "turn_end",
            AgentEvent::MessageStart { .. } => "message_start",
            AgentEvent::MessageUpdate { .. } => "message_update",
            AgentEvent::MessageEnd { .. } => "message_end",
            AgentEvent::ToolExecutionStart { .. } => "tool_execution_start",
            AgentEvent::ToolExecutionUpdate { .. } => "tool_execution_update",
            AgentEvent::ToolExecutionEnd { .. } => "tool_execution_end",
        }
    }

    /// The message of `message_*` events.
    pub fn message(&self) -> Option<&AgentMessage> {
        match self {
            AgentEvent::MessageStart { message }
            | AgentEvent::MessageUpdate { message, .. }
            | AgentEvent::MessageEnd { message } => Some(message),
            AgentEvent::AgentStart
            | AgentEvent::AgentEnd { .. }
            | AgentEvent::TurnStart
            | AgentEvent::TurnEnd { .. }
            | AgentEvent::ToolExecutionStart { .. }
            | AgentEvent::ToolExecutionUpdate { .. }
            | AgentEvent::ToolExecutionEnd { .. } => None,
        }
    }

    /// The tool call id and tool name of `tool_execution_*` events.
    pub fn tool_call(&self) -> Option<(&str, &str)> {
        match self {
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                ..
            }
            | AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                tool_name,
                ..
            }
            | AgentEvent::ToolExecutionEnd {
                tool_call_id,
                tool_name,
                ..
            } => Some((tool_call_id, tool_name)),
            AgentEvent::AgentStart
            | AgentEvent::AgentEnd { .. }
            | AgentEvent::TurnStart
            | AgentEvent::TurnEnd { .. }
            | AgentEvent::MessageStart { .. }
            | AgentEvent::MessageUpdate { .. }
            | AgentEvent::MessageEnd { .. } => None,
        }
    }
}

impl Serialize for AgentEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.event_type())?;
        match self {
            AgentEvent::AgentStart | AgentEvent::TurnStart => {}
            AgentEvent::AgentEnd { messages } => map.serialize_entry("messages", messages)?,
            AgentEvent::TurnEnd {
                message,
                tool_results,
            } => {
                map.serialize_entry("message", message)?;
                map.serialize_entry("toolResults", tool_results)?;
            }
            AgentEvent::MessageStart { message } | AgentEvent::MessageEnd { message } => {
                map.serialize_entry("message", message)?;
            }
            AgentEvent::MessageUpdate {
                message,
                assistant_message_event,
            } => {
                map.serialize_entry(
                    "assistantMessageEvent",
                    &assistant_message_event.without_partial(),
                )?;
                map.serialize_entry("message", message)?;
            }
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => {
                map.serialize_entry("toolCallId", tool_call_id)?;
                map.serialize_entry("toolName", tool_name)?;
                map.serialize_entry("args", args)?;
            }
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                tool_name,
                args,
                partial_result,
            } => {
                map.serialize_entry("toolCallId", tool_call_id)?;
                map.serialize_entry("toolName", tool_name)?;
                map.serialize_entry("args", args)?;
                map.serialize_entry("partialResult", partial_result)?;
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                tool_name,
                result,
                is_error,
            } => {
                map.serialize_entry("toolCallId", tool_call_id)?;
                map.serialize_entry("toolName", tool_name)?;
                map.serialize_entry("result", result)?;
                map.serialize_entry("isError", is_error)?;
            }
        }
        map.end()
    }
}

/// An event consumer failed; the run fails with this text (spec 2.5).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct EmitError {
    message: String,
}

impl EmitError {
    /// A failure with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// The future of one emission: either already finished (the common case: every consumer completed
/// synchronously, no allocation) or still running.
#[must_use = "an emission must be awaited"]
pub struct EmitFuture(EmitState);

enum EmitState {
    Done(Option<Result<(), EmitError>>),
    Running(BoxFuture<'static, Result<(), EmitError>>),
}

impl EmitFuture {
    /// An emission that already finished with `result`.
    pub fn ready(result: Result<(), EmitError>) -> Self {
        Self(EmitState::Done(Some(result)))
    }

    /// An emission still in progress.
    pub fn new(future: impl Future<Output = Result<(), EmitError>> + Send + 'static) -> Self {
        Self(EmitState::Running(future.boxed()))
    }
}

impl Future for EmitFuture {
    type Output = Result<(), EmitError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.0 {
            EmitState::Done(result) => Poll::Ready(result.take().unwrap_or(Ok(()))),
            EmitState::Running(future) => future.as_mut().poll(cx),
        }
    }
}

impl fmt::Debug for EmitFuture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.0 {
            EmitState::Done(_) => "done",
            EmitState::Running(_) => "running",
        };
        f.debug_tuple("EmitFuture").field(&state).finish()
    }
}

/// Where the loop sends its events. The loop awaits every emission before going on (that is the barrier
/// `Agent` listeners rely on), except tool progress updates, whose emissions start when the tool reports and
/// are awaited before that call is finalized. Emissions for different tools of a parallel batch may overlap.
pub trait AgentEventSink: Send + Sync {
    /// Delivers one event; `Err` fails the run. Events are shared (`Arc`) so consumers can keep them cheaply.
    fn emit(&self, event: Arc<AgentEvent>) -> EmitFuture;

    /// Delivers an owned event.
    fn emit_owned(&self, event: AgentEvent) -> EmitFuture {
        self.emit(Arc::new(event))
    }
}

impl<F, Fut> AgentEventSink for F
where
    F: Fn(Arc<AgentEvent>) -> Fut + Send + Sync,
    Fut: Future<Output = Result<(), EmitError>> + Send + 'static,
{
    fn emit(&self, event: Arc<AgentEvent>) -> EmitFuture {
        EmitFuture::new(self(event))
    }
}

impl fmt::Debug for dyn AgentEventSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AgentEventSink")
    }
}
