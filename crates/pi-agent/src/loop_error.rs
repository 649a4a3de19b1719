//! How a loop run fails: [`AgentLoopError`], and the failure sequence that reports a failed run to listeners
//! (spec 2.5), shared by [`crate::Agent`] and the event-stream entry points.

use std::sync::Arc;

use pi_ai::{AssistantMessage, StopReason};
use tokio_util::sync::CancellationToken;

use crate::agent_event::{AgentEvent, EmitError};
use crate::agent_message::AgentMessage;
use crate::loop_config::HookError;
use crate::stream_fn::StreamFnError;

/// Why a loop run failed (pi: the loop promise rejected). The `Display` text is pi's error message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentLoopError {
    /// `continue` on an empty context.
    #[error("Cannot continue: no messages in context")]
    NoMessages,
    /// `continue` on a context whose last message has this role (`assistant`).
    #[error("Cannot continue from message role: {0}")]
    CannotContinueFrom(String),
    /// The stream function failed instead of returning a stream.
    #[error("{0}")]
    StreamFn(#[from] StreamFnError),
    /// A loop hook (transform/convert/api key/queue poller/stop/prepare) failed.
    #[error("{0}")]
    Hook(HookError),
    /// An event consumer failed.
    #[error("{0}")]
    Emit(#[from] EmitError),
}

impl From<HookError> for AgentLoopError {
    fn from(error: HookError) -> Self {
        AgentLoopError::Hook(error)
    }
}

/// The synthetic assistant message of a failed run (spec 2.5): one empty text block, zero usage, stopReason
/// `aborted` when the run was cancelled, else `error`.
pub(crate) fn failure_message(
    model: &pi_ai::Model,
    cancel: &CancellationToken,
    error: &str,
) -> AssistantMessage {
    let reason = if cancel.is_cancelled() {
        StopReason::Aborted
    } else {
        StopReason::Error
    };
    let mut message = AssistantMessage::failure(model, reason, error);
    message.content = vec![Arc::new(pi_ai::AssistantBlock::text(""))];
    message
}

/// `message_start`, `message_end`, `turn_end`, `agent_end` for a failure message.
pub(crate) fn failure_events(message: AssistantMessage) -> [AgentEvent; 4] {
    let message = Arc::new(message);
    [
        AgentEvent::MessageStart {
            message: AgentMessage::Assistant(Arc::clone(&message)),
        },
        AgentEvent::MessageEnd {
            message: AgentMessage::Assistant(Arc::clone(&message)),
        },
        AgentEvent::TurnEnd {
            message: Arc::clone(&message),
            tool_results: Vec::new(),
        },
        AgentEvent::AgentEnd {
            messages: vec![AgentMessage::Assistant(message)],
        },
    ]
}
