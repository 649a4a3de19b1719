//! What the low-level loop runs with: [`AgentContext`], [`AgentLoopConfig`] and the hook types (spec 1.9, 1.11).
//!
//! Hooks are async trait objects. pi's hooks "must not throw"; here a hook returns `Err(HookError)` for that
//! contract violation. Where pi catches a throw (the tool hooks, a tool's `prepare_arguments`), the error becomes
//! an error tool result; everywhere else it fails the run (the low-level loop returns it, `Agent` turns it into a
//! failure message). A panic inside a hook is caught and treated the same way.

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use pi_ai::{
    AssistantMessage, Message, Model, ModelThinkingLevel, SimpleStreamOptions, ToolCall,
    ToolResultMessage, Usage, UserBlock,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::agent_message::{AgentMessage, default_convert_to_llm};
use crate::agent_tool::{AgentToolResult, SharedAgentTool, ToolExecutionMode};
use crate::stream_fn::OpaqueFn;

/// A hook or listener failed (pi: it threw). The text is what error results and failure messages show.
///
/// Any `std::error::Error` converts into it, so `?` works inside hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookError {
    message: String,
}

impl HookError {
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

impl fmt::Display for HookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<E: std::error::Error> From<E> for HookError {
    fn from(error: E) -> Self {
        Self::new(error.to_string())
    }
}

/// The future every hook returns.
pub type HookFuture<T> = BoxFuture<'static, Result<T, HookError>>;

/// The loop's input: system prompt, transcript and tools.
#[derive(Clone, Default)]
pub struct AgentContext {
    /// System prompt sent with every request.
    pub system_prompt: String,
    /// The transcript, oldest first.
    pub messages: Vec<AgentMessage>,
    /// Tools the model may call.
    pub tools: Vec<SharedAgentTool>,
}

impl fmt::Debug for AgentContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tools: Vec<&str> = self.tools.iter().map(|tool| tool.name()).collect();
        f.debug_struct("AgentContext")
            .field("system_prompt", &self.system_prompt)
            .field("messages", &self.messages)
            .field("tools", &tools)
            .finish()
    }
}

/// Converts the (possibly transformed) transcript to LLM messages; called once per request. Required.
pub type ConvertToLlmFn = Arc<dyn Fn(Vec<AgentMessage>) -> HookFuture<Vec<Message>> + Send + Sync>;

/// Rewrites the transcript before `convert_to_llm` on every request (pruning, injection).
pub type TransformContextFn = Arc<
    dyn Fn(Vec<AgentMessage>, CancellationToken) -> HookFuture<Vec<AgentMessage>> + Send + Sync,
>;

/// Resolves an API key for a provider before every request; `None` or empty falls back to the configured key.
pub type GetApiKeyFn = Arc<dyn Fn(String) -> HookFuture<Option<String>> + Send + Sync>;

/// Runs after argument validation, before execution; may block the call.
pub type BeforeToolCallFn = Arc<
    dyn Fn(BeforeToolCallContext, CancellationToken) -> HookFuture<Option<BeforeToolCallResult>>
        + Send
        + Sync,
>;

/// Runs after execution (also after a failed one); may override fields of the result.
pub type AfterToolCallFn = Arc<
    dyn Fn(AfterToolCallContext, CancellationToken) -> HookFuture<Option<AfterToolCallResult>>
        + Send
        + Sync,
>;

/// Runs after every completed turn; `true` ends the run gracefully.
pub type ShouldStopAfterTurnFn =
    Arc<dyn Fn(TurnContext, CancellationToken) -> HookFuture<bool> + Send + Sync>;

/// Runs when another turn is about to start; may replace context, model or thinking level for the rest of the run.
pub type PrepareNextTurnFn =
    Arc<dyn Fn(TurnContext, CancellationToken) -> HookFuture<Option<NextTurnUpdate>> + Send + Sync>;

/// Supplies queued messages (steering or follow-up); return an empty list when there are none.
pub type MessageSourceFn = Arc<dyn Fn() -> HookFuture<Vec<AgentMessage>> + Send + Sync>;

/// What `before_tool_call` sees.
#[derive(Debug, Clone)]
pub struct BeforeToolCallContext {
    /// The assistant message that made the call (shared with the transcript).
    pub assistant_message: Arc<AssistantMessage>,
    /// The call as the model sent it (raw arguments).
    pub tool_call: ToolCall,
    /// Validated, coerced arguments (what `execute` receives unless the hook replaces them).
    pub args: Value,
    /// The loop's context at the start of the batch.
    pub context: Arc<AgentContext>,
}

/// What `before_tool_call` may return.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BeforeToolCallResult {
    /// Do not execute: the call gets an error result with `reason` (or "Tool execution was blocked").
    pub block: bool,
    /// Why the call was blocked.
    pub reason: Option<String>,
    /// With `block`: the blocked result carries `terminate: true`.
    pub terminate: Option<bool>,
    /// Replacement arguments for `execute`, used without re-validation (pi lets the hook mutate `args`).
    pub args: Option<Value>,
}

/// What `after_tool_call` sees.
#[derive(Debug, Clone)]
pub struct AfterToolCallContext {
    /// The assistant message that made the call (shared with the transcript).
    pub assistant_message: Arc<AssistantMessage>,
    /// The call as the model sent it.
    pub tool_call: ToolCall,
    /// The arguments `execute` received.
    pub args: Value,
    /// The result before any override.
    pub result: AgentToolResult,
    /// True when execution failed.
    pub is_error: bool,
    /// The loop's context at the start of the batch.
    pub context: Arc<AgentContext>,
}

/// Field overrides from `after_tool_call`: each present field replaces the original; no deep merge; other keys of
/// the original result survive.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AfterToolCallResult {
    /// Replacement content.
    pub content: Option<Vec<UserBlock>>,
    /// Replacement details.
    pub details: Option<Value>,
    /// Replacement error flag.
    pub is_error: Option<bool>,
    /// Replacement usage.
    pub usage: Option<Usage>,
    /// Replacement terminate hint.
    pub terminate: Option<bool>,
}

/// What `should_stop_after_turn` and `prepare_next_turn` see: the turn that just ended.
#[derive(Debug, Clone)]
pub struct TurnContext {
    /// The turn's assistant message (shared with the transcript).
    pub message: Arc<AssistantMessage>,
    /// Its tool results, in source order.
    pub tool_results: Vec<ToolResultMessage>,
    /// The loop's current context.
    pub context: Arc<AgentContext>,
    /// Every message the run added so far.
    pub new_messages: Arc<Vec<AgentMessage>>,
}

/// What `prepare_next_turn` may change for the rest of the run.
#[derive(Debug, Clone, Default)]
pub struct NextTurnUpdate {
    /// Replaces the loop's context wholesale.
    pub context: Option<AgentContext>,
    /// Replaces the model.
    pub model: Option<Model>,
    /// Replaces the thinking level (`Off` clears `reasoning`).
    pub thinking_level: Option<ModelThinkingLevel>,
}

/// Default time a stream or tool gets to finish after the run was cancelled before it is abandoned (spec 6.7 c).
pub const DEFAULT_ABORT_GRACE_PERIOD: Duration = Duration::from_secs(5);

/// Configuration of one low-level loop run (pi's `AgentLoopConfig`).
#[derive(Clone)]
pub struct AgentLoopConfig {
    /// Model for requests (replaceable by `prepare_next_turn`).
    pub model: Model,
    /// Options forwarded to the stream function; the loop sets `signal` and `api_key` itself.
    pub stream_options: SimpleStreamOptions,
    /// Transcript → LLM messages, once per request.
    pub convert_to_llm: ConvertToLlmFn,
    /// Transcript rewrite before `convert_to_llm`.
    pub transform_context: Option<TransformContextFn>,
    /// Per-request API key lookup.
    pub get_api_key: Option<GetApiKeyFn>,
    /// Graceful stop after a turn.
    pub should_stop_after_turn: Option<ShouldStopAfterTurnFn>,
    /// Between-turn update.
    pub prepare_next_turn: Option<PrepareNextTurnFn>,
    /// Steering queue poller.
    pub get_steering_messages: Option<MessageSourceFn>,
    /// Follow-up queue poller.
    pub get_follow_up_messages: Option<MessageSourceFn>,
    /// Batch execution mode (a tool's own `Sequential` mode overrides `Parallel`).
    pub tool_execution: ToolExecutionMode,
    /// Hook before each tool execution.
    pub before_tool_call: Option<BeforeToolCallFn>,
    /// Hook after each tool execution.
    pub after_tool_call: Option<AfterToolCallFn>,
    /// How long a stream or a tool may run on after cancellation before it is abandoned.
    pub abort_grace_period: Duration,
}

impl AgentLoopConfig {
    /// A config with the given model, the default role filter as `convert_to_llm` and no other hooks.
    pub fn new(model: Model) -> Self {
        Self {
            model,
            stream_options: SimpleStreamOptions::default(),
            convert_to_llm: default_convert_to_llm_fn(),
            transform_context: None,
            get_api_key: None,
            should_stop_after_turn: None,
            prepare_next_turn: None,
            get_steering_messages: None,
            get_follow_up_messages: None,
            tool_execution: ToolExecutionMode::Parallel,
            before_tool_call: None,
            after_tool_call: None,
            abort_grace_period: DEFAULT_ABORT_GRACE_PERIOD,
        }
    }
}

impl fmt::Debug for AgentLoopConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentLoopConfig")
            .field("model", &self.model.id)
            .field("stream_options", &self.stream_options)
            .field("convert_to_llm", &OpaqueFn)
            .field(
                "transform_context",
                &self.transform_context.as_ref().map(|_| OpaqueFn),
            )
            .field("tool_execution", &self.tool_execution)
            .field("abort_grace_period", &self.abort_grace_period)
            .finish_non_exhaustive()
    }
}

/// The default `convert_to_llm` as a hook value: keep user, assistant and tool-result messages.
pub fn default_convert_to_llm_fn() -> ConvertToLlmFn {
    Arc::new(|messages: Vec<AgentMessage>| {
        futures_util::future::ready(Ok(default_convert_to_llm(&messages))).boxed()
    })
}

/// Boxes an async closure of one argument plus the cancellation token into a hook value.
pub fn hook<C, T, F, Fut>(
    function: F,
) -> Arc<dyn Fn(C, CancellationToken) -> HookFuture<T> + Send + Sync>
where
    F: Fn(C, CancellationToken) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<T, HookError>> + Send + 'static,
    C: 'static,
    T: 'static,
{
    Arc::new(move |ctx, cancel| function(ctx, cancel).boxed())
}
