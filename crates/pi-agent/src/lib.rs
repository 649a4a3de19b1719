#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod agent;
mod agent_event;
mod agent_loop;
mod agent_message;
mod agent_options;
mod agent_state;
mod agent_tool;
mod guard;
mod listeners;
mod loop_config;
mod loop_error;
mod loop_stream;
mod message_queue;
mod prompt_input;
mod run_lifecycle;
mod stream_fn;
mod tool_execution;
mod tool_update;

pub use agent::{Agent, AgentError, WeakAgent};
pub use agent_event::{AgentEvent, AgentEventSink, EmitError, EmitFuture};
pub use agent_loop::{
    REQUEST_ABORTED, STREAM_ENDED_WITHOUT_TERMINAL_EVENT, run_agent_loop, run_agent_loop_continue,
};
pub use agent_message::{AgentMessage, CustomMessage, default_convert_to_llm};
pub use agent_options::{AgentConfig, AgentInitialState, AgentOptions};
pub use agent_state::AgentState;
pub use agent_tool::{
    AgentTool, AgentToolResult, SharedAgentTool, ToolError, ToolExecutionMode, ToolUpdateSink,
};
pub use listeners::{Listener, Subscription, SyncListener};
pub use loop_config::{
    AfterToolCallContext, AfterToolCallFn, AfterToolCallResult, AgentContext, AgentLoopConfig,
    BeforeToolCallContext, BeforeToolCallFn, BeforeToolCallResult, ConvertToLlmFn,
    DEFAULT_ABORT_GRACE_PERIOD, GetApiKeyFn, HookError, HookFuture, MessageSourceFn,
    NextTurnUpdate, PrepareNextTurnFn, ShouldStopAfterTurnFn, TransformContextFn, TurnContext,
    default_convert_to_llm_fn, hook,
};
pub use loop_error::AgentLoopError;
pub use loop_stream::{AgentEventStream, agent_loop, agent_loop_continue};
pub use message_queue::QueueMode;
pub use prompt_input::PromptInput;
pub use stream_fn::{StreamFn, StreamFnError, StreamFnFuture, stream_fn};
pub use tool_execution::OPERATION_ABORTED;
