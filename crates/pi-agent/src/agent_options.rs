//! What an [`crate::Agent`] is built from: its initial state, its options and its queue modes.

use std::fmt;
use std::time::Duration;

use pi_ai::{Model, ModelThinkingLevel, ThinkingBudgets, Transport};
use pi_ai::{PayloadHook, ResponseHook};

use crate::agent_message::AgentMessage;
use crate::agent_tool::{SharedAgentTool, ToolExecutionMode};
use crate::loop_config::{
    AfterToolCallFn, BeforeToolCallFn, ConvertToLlmFn, DEFAULT_ABORT_GRACE_PERIOD, GetApiKeyFn,
    PrepareNextTurnFn, ShouldStopAfterTurnFn, TransformContextFn,
};
use crate::message_queue::QueueMode;
use crate::stream_fn::{OpaqueFn, StreamFn};

/// Every option of an [`crate::Agent`] besides its state; readable and replaceable while the agent lives
/// ([`crate::Agent::config`], [`crate::Agent::configure`]). A run takes what it needs when it starts (spec 2.2).
#[derive(Clone)]
pub struct AgentConfig {
    /// The model layer seam (required).
    pub stream_fn: StreamFn,
    /// Transcript → LLM messages; `None` = keep user, assistant and tool-result messages.
    pub convert_to_llm: Option<ConvertToLlmFn>,
    /// Transcript rewrite before every request.
    pub transform_context: Option<TransformContextFn>,
    /// Per-request API key lookup.
    pub get_api_key: Option<GetApiKeyFn>,
    /// Hook before each tool execution.
    pub before_tool_call: Option<BeforeToolCallFn>,
    /// Hook after each tool execution.
    pub after_tool_call: Option<AfterToolCallFn>,
    /// Graceful stop after a turn (captured at run start).
    pub should_stop_after_turn: Option<ShouldStopAfterTurnFn>,
    /// Between-turn update, given the previous turn (pi's `prepareNextTurnWithContext`); looked up anew at
    /// every call.
    pub prepare_next_turn: Option<PrepareNextTurnFn>,
    /// Forwarded to every request.
    pub session_id: Option<String>,
    /// Forwarded to every request.
    pub thinking_budgets: Option<ThinkingBudgets>,
    /// Forwarded to every request (default `auto`).
    pub transport: Transport,
    /// Forwarded to every request.
    pub max_retry_delay_ms: Option<u64>,
    /// Forwarded to every request.
    pub on_payload: Option<PayloadHook>,
    /// Forwarded to every request.
    pub on_response: Option<ResponseHook>,
    /// Batch execution mode (default parallel).
    pub tool_execution: ToolExecutionMode,
    /// Time a stream or tool may run on after `abort` before it is abandoned (spec 6.7 c).
    pub abort_grace_period: Duration,
}

impl AgentConfig {
    /// A config with the given stream function and pi's defaults for everything else.
    pub fn new(stream_fn: StreamFn) -> Self {
        Self {
            stream_fn,
            convert_to_llm: None,
            transform_context: None,
            get_api_key: None,
            before_tool_call: None,
            after_tool_call: None,
            should_stop_after_turn: None,
            prepare_next_turn: None,
            session_id: None,
            thinking_budgets: None,
            transport: Transport::Auto,
            max_retry_delay_ms: None,
            on_payload: None,
            on_response: None,
            tool_execution: ToolExecutionMode::Parallel,
            abort_grace_period: DEFAULT_ABORT_GRACE_PERIOD,
        }
    }
}

impl fmt::Debug for AgentConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentConfig")
            .field("stream_fn", &OpaqueFn)
            .field("session_id", &self.session_id)
            .field("transport", &self.transport)
            .field("tool_execution", &self.tool_execution)
            .field("abort_grace_period", &self.abort_grace_period)
            .finish_non_exhaustive()
    }
}

/// The initial state (spec 2.1): lists are copied, everything else defaults as in pi.
#[derive(Debug, Clone, Default)]
pub struct AgentInitialState {
    /// Default "".
    pub system_prompt: Option<String>,
    /// Default: the placeholder model (`Model::unknown()`).
    pub model: Option<Model>,
    /// Default `off`.
    pub thinking_level: Option<ModelThinkingLevel>,
    /// Default none.
    pub tools: Vec<SharedAgentTool>,
    /// Default none.
    pub messages: Vec<AgentMessage>,
}

/// Constructor options of an [`crate::Agent`].
#[derive(Debug, Clone)]
pub struct AgentOptions {
    /// Initial state.
    pub initial_state: AgentInitialState,
    /// Hooks and request options.
    pub config: AgentConfig,
    /// Steering drain mode (default one-at-a-time).
    pub steering_mode: QueueMode,
    /// Follow-up drain mode (default one-at-a-time).
    pub follow_up_mode: QueueMode,
}

impl AgentOptions {
    /// Options with the given stream function and defaults for everything else.
    pub fn new(stream_fn: StreamFn) -> Self {
        Self {
            initial_state: AgentInitialState::default(),
            config: AgentConfig::new(stream_fn),
            steering_mode: QueueMode::OneAtATime,
            follow_up_mode: QueueMode::OneAtATime,
        }
    }
}
