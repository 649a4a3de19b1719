//! [`AgentState`] and the reducer that keeps it in step with a run's events (spec 1.9, 2.10).

use std::fmt;
use std::sync::Arc;

use pi_ai::{Model, ModelThinkingLevel};

use crate::agent_event::AgentEvent;
use crate::agent_message::AgentMessage;
use crate::agent_tool::SharedAgentTool;

/// What an [`crate::Agent`] holds: configuration for the next run, the transcript, and where the current run is.
#[derive(Clone)]
pub struct AgentState {
    /// System prompt for subsequent runs.
    pub system_prompt: String,
    /// Model for subsequent runs.
    pub model: Model,
    /// Thinking level for subsequent runs (`Off` = no reasoning option).
    pub thinking_level: ModelThinkingLevel,
    /// Tools for subsequent runs.
    pub tools: Vec<SharedAgentTool>,
    /// The transcript. During a run it grows only through `message_end` events.
    pub messages: Vec<AgentMessage>,
    /// True from run start until the run settled (after the `agent_end` listeners).
    pub is_streaming: bool,
    /// The message between its `message_start` and `message_end` — any role, so check it before treating it as
    /// an assistant partial.
    pub streaming_message: Option<AgentMessage>,
    /// Ids of tool calls between `tool_execution_start` and `tool_execution_end`, in start order.
    pub pending_tool_calls: Vec<String>,
    /// Error text of the most recent failed or aborted assistant turn; cleared at run start and by `reset`.
    pub error_message: Option<String>,
}

impl fmt::Debug for AgentState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tools: Vec<&str> = self.tools.iter().map(|tool| tool.name()).collect();
        f.debug_struct("AgentState")
            .field("system_prompt", &self.system_prompt)
            .field("model", &self.model.id)
            .field("thinking_level", &self.thinking_level)
            .field("tools", &tools)
            .field("messages", &self.messages.len())
            .field("is_streaming", &self.is_streaming)
            .field(
                "streaming_message",
                &self.streaming_message.as_ref().map(AgentMessage::role),
            )
            .field("pending_tool_calls", &self.pending_tool_calls)
            .field("error_message", &self.error_message)
            .finish()
    }
}

/// The agent's live state: [`AgentState`] whose `streaming_message` is kept as the (shared) event that set it,
/// so a streaming delta costs no message copy; [`LiveState::snapshot`] materializes it.
pub(crate) struct LiveState {
    pub(crate) state: AgentState,
    pub(crate) streaming_event: Option<Arc<AgentEvent>>,
}

impl LiveState {
    pub(crate) fn new(state: AgentState) -> Self {
        Self {
            state,
            streaming_event: None,
        }
    }

    pub(crate) fn snapshot(&self) -> AgentState {
        let mut state = self.state.clone();
        state.streaming_message = self.streaming_message();
        state
    }

    pub(crate) fn streaming_message(&self) -> Option<AgentMessage> {
        self.streaming_event
            .as_deref()
            .and_then(AgentEvent::message)
            .cloned()
    }

    /// Applies one event; runs before any listener sees the event (spec 2.10).
    pub(crate) fn reduce(&mut self, event: &Arc<AgentEvent>) {
        let state = &mut self.state;
        match event.as_ref() {
            AgentEvent::MessageStart { .. } | AgentEvent::MessageUpdate { .. } => {
                self.streaming_event = Some(Arc::clone(event));
            }
            AgentEvent::MessageEnd { message } => {
                self.streaming_event = None;
                state.messages.push(message.clone());
            }
            AgentEvent::ToolExecutionStart { tool_call_id, .. } => {
                if !state.pending_tool_calls.contains(tool_call_id) {
                    state.pending_tool_calls.push(tool_call_id.clone());
                }
            }
            AgentEvent::ToolExecutionEnd { tool_call_id, .. } => {
                state.pending_tool_calls.retain(|id| id != tool_call_id);
            }
            AgentEvent::TurnEnd { message, .. } => {
                if let Some(error) = message
                    .error_message
                    .as_ref()
                    .filter(|error| !error.is_empty())
                {
                    state.error_message = Some(error.clone());
                }
            }
            AgentEvent::AgentEnd { .. } => self.streaming_event = None,
            AgentEvent::AgentStart
            | AgentEvent::TurnStart
            | AgentEvent::ToolExecutionUpdate { .. } => {}
        }
    }
}
