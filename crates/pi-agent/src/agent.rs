//! [`Agent`]: the stateful wrapper around the loop (spec 2) — state, subscriptions, queues, cancellation and the
//! run lifecycle.
//!
//! Concurrency: an `Agent` is a cheap, cloneable, `Send + Sync` handle. All state sits behind one std mutex that
//! is locked only inside short synchronous sections, never across an `.await`; listeners run without it. One task
//! can be inside `prompt` while others call `abort`, `steer` or read the state.
//!
//! A run lives inside the future returned by `prompt` / `continue_run`: keep polling it (spawn it if you need to
//! do something else meanwhile). Dropping that future drops the run; the agent still returns to idle.

use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::Duration;

use futures_util::FutureExt;
use pi_ai::{
    ImageContent, Model, ModelThinkingLevel, SimpleStreamOptions, ThinkingBudgets, Transport,
    UserBlock, UserContent, UserMessage,
};
use pi_ai::{PayloadHook, ResponseHook};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::agent_event::{AgentEvent, AgentEventSink, EmitError, EmitFuture};
use crate::agent_loop::{
    AgentLoopError, failure_events, failure_message, run_agent_loop, run_agent_loop_continue,
    run_agent_loop_without_initial_steering,
};
use crate::agent_message::AgentMessage;
use crate::agent_state::{AgentState, LiveState};
use crate::agent_tool::{SharedAgentTool, ToolExecutionMode};
use crate::guard::panic_message;
use crate::loop_config::{
    AfterToolCallFn, AgentContext, AgentLoopConfig, BeforeToolCallFn, ConvertToLlmFn,
    DEFAULT_ABORT_GRACE_PERIOD, GetApiKeyFn, HookError, HookFuture, MessageSourceFn,
    NextTurnUpdate, PrepareNextTurnFn, ShouldStopAfterTurnFn, TransformContextFn, TurnContext,
    default_convert_to_llm_fn,
};
use crate::message_queue::{MessageQueue, QueueMode};
use crate::stream_fn::{OpaqueFn, StreamFn};

/// Why an `Agent` call was refused. The texts are pi's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// `prompt` while a run is active (nothing is queued).
    #[error(
        "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion."
    )]
    AlreadyProcessingPrompt,
    /// `continue_run` while a run is active.
    #[error("Agent is already processing. Wait for completion before continuing.")]
    AlreadyProcessingContinue,
    /// `reset` while a run is active.
    #[error("Agent is already processing. Wait for completion before resetting.")]
    AlreadyProcessingReset,
    /// `continue_run` with an empty transcript.
    #[error("No messages to continue from")]
    NoMessagesToContinue,
    /// `continue_run` with an assistant tail and nothing queued.
    #[error("Cannot continue from message role: {0}")]
    CannotContinueFrom(String),
    /// A listener failed while the failure sequence of an already failed run was being delivered.
    #[error("{0}")]
    Listener(String),
}

/// A subscriber: awaited in subscription order for every event, with the run's cancellation token. An `Err` (or a
/// panic) stops delivery of that event to later listeners and fails the run (spec 2.9).
pub type Listener = Arc<dyn Fn(Arc<AgentEvent>, CancellationToken) -> HookFuture<()> + Send + Sync>;

/// A synchronous subscriber (see [`Agent::subscribe_sync`]): called in place, with borrowed arguments.
pub type SyncListener =
    Arc<dyn Fn(&AgentEvent, &CancellationToken) -> Result<(), HookError> + Send + Sync>;

/// A registered subscriber.
#[derive(Clone)]
enum Subscriber {
    Async(Listener),
    Sync(SyncListener),
}

/// pi's legacy `prepareNextTurn(signal)`: receives only the run's token.
pub type LegacyPrepareNextTurnFn =
    Arc<dyn Fn(CancellationToken) -> HookFuture<Option<NextTurnUpdate>> + Send + Sync>;

/// The agent's `prepareNextTurn` hook, in either of pi's two forms.
#[derive(Clone)]
pub enum AgentPrepareNextTurn {
    /// Receives the previous turn (pi's `prepareNextTurnWithContext`, preferred).
    WithContext(PrepareNextTurnFn),
    /// Receives only the token (pi's legacy `prepareNextTurn`).
    Legacy(LegacyPrepareNextTurnFn),
}

/// Every option of an [`Agent`] besides its state; readable and replaceable while the agent lives
/// ([`Agent::config`], [`Agent::configure`]). A run takes what it needs when it starts (spec 2.2).
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
    /// Between-turn update (looked up anew at every call).
    pub prepare_next_turn: Option<AgentPrepareNextTurn>,
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

/// Constructor options of an [`Agent`].
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

/// What `prompt` accepts: text (with optional images), one message, or several.
#[derive(Debug, Clone)]
pub enum PromptInput {
    /// A user message with one text block, followed by the images (if any).
    Text {
        /// The text.
        text: String,
        /// Images appended after the text block.
        images: Vec<ImageContent>,
    },
    /// Messages used as they are (any role; an empty list starts a run with no prompt).
    Messages(Vec<AgentMessage>),
}

impl PromptInput {
    /// Text plus images.
    pub fn with_images(text: impl Into<String>, images: Vec<ImageContent>) -> Self {
        PromptInput::Text {
            text: text.into(),
            images,
        }
    }

    fn into_messages(self) -> Vec<AgentMessage> {
        match self {
            PromptInput::Text { text, images } => {
                let mut blocks = vec![UserBlock::text(text)];
                blocks.extend(images.into_iter().map(UserBlock::Image));
                vec![AgentMessage::User(UserMessage::new(UserContent::Blocks(
                    blocks,
                )))]
            }
            PromptInput::Messages(messages) => messages,
        }
    }
}

impl From<&str> for PromptInput {
    fn from(text: &str) -> Self {
        PromptInput::Text {
            text: text.into(),
            images: Vec::new(),
        }
    }
}

impl From<String> for PromptInput {
    fn from(text: String) -> Self {
        PromptInput::Text {
            text,
            images: Vec::new(),
        }
    }
}

impl From<AgentMessage> for PromptInput {
    fn from(message: AgentMessage) -> Self {
        PromptInput::Messages(vec![message])
    }
}

impl From<Vec<AgentMessage>> for PromptInput {
    fn from(messages: Vec<AgentMessage>) -> Self {
        PromptInput::Messages(messages)
    }
}

/// The stateful agent handle. Cheap to clone; every clone is the same agent.
#[derive(Clone)]
pub struct Agent {
    inner: Arc<AgentInner>,
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("is_streaming", &self.is_streaming())
            .finish_non_exhaustive()
    }
}

struct AgentInner {
    shared: Mutex<Shared>,
}

struct Shared {
    live: LiveState,
    config: AgentConfig,
    steering: MessageQueue,
    follow_up: MessageQueue,
    listeners: Vec<(u64, Subscriber)>,
    next_listener_id: u64,
    run: Option<ActiveRun>,
    next_run_id: u64,
}

struct ActiveRun {
    id: u64,
    cancel: CancellationToken,
    idle: watch::Receiver<bool>,
}

impl AgentInner {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A non-owning [`Agent`] handle; see [`Agent::downgrade`].
#[derive(Clone, Debug)]
pub struct WeakAgent {
    inner: Weak<AgentInner>,
}

impl WeakAgent {
    /// The agent, if it still exists.
    pub fn upgrade(&self) -> Option<Agent> {
        self.inner.upgrade().map(|inner| Agent { inner })
    }
}

/// Returned by [`Agent::subscribe`]; call [`Subscription::unsubscribe`] to remove the listener.
#[derive(Debug)]
pub struct Subscription {
    agent: Weak<AgentInner>,
    id: u64,
}

impl fmt::Debug for AgentInner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AgentInner")
    }
}

impl Subscription {
    /// Removes the listener (a no-op if the agent is gone). A listener removed during a dispatch is skipped for
    /// the rest of it.
    pub fn unsubscribe(self) {
        if let Some(inner) = self.agent.upgrade() {
            inner.lock().listeners.retain(|(id, _)| *id != self.id);
        }
    }
}

/// How a run starts.
enum RunKind {
    Prompt(Vec<AgentMessage>),
    PromptWithoutInitialSteering(Vec<AgentMessage>),
    Continue,
}

/// A registered run, ready to execute. Dropping it (or finishing) returns the agent to idle.
struct RunStart {
    kind: RunKind,
    context: AgentContext,
    config: AgentLoopConfig,
    stream_fn: StreamFn,
    cancel: CancellationToken,
    guard: RunGuard,
}

/// Clears the run state when the run ends, however it ends (spec 2.5 "finally").
struct RunGuard {
    inner: Arc<AgentInner>,
    id: u64,
    idle: watch::Sender<bool>,
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        let mut shared = self.inner.lock();
        shared.live.state.is_streaming = false;
        shared.live.streaming_event = None;
        shared.live.state.pending_tool_calls.clear();
        if shared.run.as_ref().is_some_and(|run| run.id == self.id) {
            shared.run = None;
        }
        drop(shared);
        self.idle.send_replace(true);
    }
}

impl Agent {
    /// Creates an agent.
    pub fn new(options: AgentOptions) -> Self {
        let initial = options.initial_state;
        let state = AgentState {
            system_prompt: initial.system_prompt.unwrap_or_default(),
            model: initial.model.unwrap_or_else(Model::unknown),
            thinking_level: initial.thinking_level.unwrap_or(ModelThinkingLevel::Off),
            tools: initial.tools,
            messages: initial.messages,
            is_streaming: false,
            streaming_message: None,
            pending_tool_calls: Vec::new(),
            error_message: None,
        };
        let shared = Shared {
            live: LiveState::new(state),
            config: options.config,
            steering: MessageQueue::new(options.steering_mode),
            follow_up: MessageQueue::new(options.follow_up_mode),
            listeners: Vec::new(),
            next_listener_id: 1,
            run: None,
            next_run_id: 1,
        };
        Self {
            inner: Arc::new(AgentInner {
                shared: Mutex::new(shared),
            }),
        }
    }

    /// A handle that does not keep the agent alive (for tools and listeners that need to reach their agent).
    pub fn downgrade(&self) -> WeakAgent {
        WeakAgent {
            inner: Arc::downgrade(&self.inner),
        }
    }

    // ------------------------------------------------------------------ state

    /// A snapshot of the whole state (lists are copied; later changes do not show in it).
    pub fn state(&self) -> AgentState {
        self.inner.lock().live.snapshot()
    }

    /// The message between its `message_start` and `message_end` (any role), if any.
    pub fn streaming_message(&self) -> Option<AgentMessage> {
        self.inner.lock().live.streaming_message()
    }

    /// Ids of the tool calls that started and have not ended, in start order.
    pub fn pending_tool_calls(&self) -> Vec<String> {
        self.inner.lock().live.state.pending_tool_calls.clone()
    }

    /// Error text of the most recent failed or aborted turn.
    pub fn error_message(&self) -> Option<String> {
        self.inner.lock().live.state.error_message.clone()
    }

    /// True from run start until the run settled (after the `agent_end` listeners).
    pub fn is_streaming(&self) -> bool {
        self.inner.lock().live.state.is_streaming
    }

    /// A copy of the transcript.
    pub fn messages(&self) -> Vec<AgentMessage> {
        self.inner.lock().live.state.messages.clone()
    }

    /// Replaces the transcript with a copy of `messages` (does not clear `error_message`).
    pub fn set_messages(&self, messages: Vec<AgentMessage>) {
        self.inner.lock().live.state.messages = messages;
    }

    /// Mutates the transcript in place (pi lets callers mutate the live array).
    pub fn update_messages<T>(&self, update: impl FnOnce(&mut Vec<AgentMessage>) -> T) -> T {
        update(&mut self.inner.lock().live.state.messages)
    }

    /// Replaces the tool list (used by the next run).
    pub fn set_tools(&self, tools: Vec<SharedAgentTool>) {
        self.inner.lock().live.state.tools = tools;
    }

    /// Sets the system prompt (used by the next run).
    pub fn set_system_prompt(&self, system_prompt: impl Into<String>) {
        self.inner.lock().live.state.system_prompt = system_prompt.into();
    }

    /// Sets the model (used by the next run).
    pub fn set_model(&self, model: Model) {
        self.inner.lock().live.state.model = model;
    }

    /// Sets the thinking level (used by the next run; `Off` = no reasoning option).
    pub fn set_thinking_level(&self, thinking_level: ModelThinkingLevel) {
        self.inner.lock().live.state.thinking_level = thinking_level;
    }

    /// A copy of the options.
    pub fn config(&self) -> AgentConfig {
        self.inner.lock().config.clone()
    }

    /// Changes options; runs already started keep what they captured (spec 2.2).
    pub fn configure<T>(&self, change: impl FnOnce(&mut AgentConfig) -> T) -> T {
        change(&mut self.inner.lock().config)
    }

    /// The active run's cancellation token, if a run is active.
    pub fn signal(&self) -> Option<CancellationToken> {
        self.inner.lock().run.as_ref().map(|run| run.cancel.clone())
    }

    // ------------------------------------------------------------------ subscriptions

    /// Adds a listener (see [`Listener`]). No event is sent on subscribe.
    pub fn subscribe<F, Fut>(&self, listener: F) -> Subscription
    where
        F: Fn(Arc<AgentEvent>, CancellationToken) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), HookError>> + Send + 'static,
    {
        let listener: Listener = Arc::new(move |event, cancel| listener(event, cancel).boxed());
        self.add_subscriber(Subscriber::Async(listener))
    }

    /// Adds a synchronous listener: same ordering and failure rules as [`Agent::subscribe`], but it is called in
    /// place with borrowed arguments (no allocation per event) and cannot await. Use it for UI state updates.
    pub fn subscribe_sync<F>(&self, listener: F) -> Subscription
    where
        F: Fn(&AgentEvent, &CancellationToken) -> Result<(), HookError> + Send + Sync + 'static,
    {
        self.add_subscriber(Subscriber::Sync(Arc::new(listener)))
    }

    fn add_subscriber(&self, subscriber: Subscriber) -> Subscription {
        let mut shared = self.inner.lock();
        let id = shared.next_listener_id;
        shared.next_listener_id += 1;
        shared.listeners.push((id, subscriber));
        Subscription {
            agent: Arc::downgrade(&self.inner),
            id,
        }
    }

    // ------------------------------------------------------------------ runs

    /// Starts a run with a prompt and resolves once it fully settled (after the `agent_end` listeners).
    ///
    /// The active-run check happens when `prompt` is called, not when the future is first polled: of two calls
    /// in a row the first runs and the second fails with [`AgentError::AlreadyProcessingPrompt`]. Model and tool
    /// failures do not fail the future; they become messages and events.
    pub fn prompt(
        &self,
        input: impl Into<PromptInput>,
    ) -> impl Future<Output = Result<(), AgentError>> + Send + 'static {
        let messages = input.into().into_messages();
        let start = {
            let mut shared = self.inner.lock();
            if shared.run.is_some() {
                Err(AgentError::AlreadyProcessingPrompt)
            } else {
                Ok(self.begin_run(&mut shared, RunKind::Prompt(messages)))
            }
        };
        async move { start?.execute().await }
    }

    /// Continues from the current transcript (pi's `continue()`, spec 2.4).
    ///
    /// With an assistant tail it delivers queued steering messages (first) or follow-ups as prompts, else fails
    /// with [`AgentError::CannotContinueFrom`].
    pub fn continue_run(&self) -> impl Future<Output = Result<(), AgentError>> + Send + 'static {
        let start = {
            let mut shared = self.inner.lock();
            self.begin_continue(&mut shared)
        };
        async move { start?.execute().await }
    }

    fn begin_continue(&self, shared: &mut Shared) -> Result<RunStart, AgentError> {
        if shared.run.is_some() {
            return Err(AgentError::AlreadyProcessingContinue);
        }
        match shared.live.state.messages.last() {
            None => Err(AgentError::NoMessagesToContinue),
            Some(AgentMessage::Assistant(_)) => {
                let steering = shared.steering.drain();
                if !steering.is_empty() {
                    return Ok(
                        self.begin_run(shared, RunKind::PromptWithoutInitialSteering(steering))
                    );
                }
                let follow_ups = shared.follow_up.drain();
                if !follow_ups.is_empty() {
                    return Ok(self.begin_run(shared, RunKind::Prompt(follow_ups)));
                }
                Err(AgentError::CannotContinueFrom("assistant".into()))
            }
            Some(_) => Ok(self.begin_run(shared, RunKind::Continue)),
        }
    }

    /// Registers a run (the caller checked that none is active) and snapshots context and config (spec 2.2).
    fn begin_run(&self, shared: &mut Shared, kind: RunKind) -> RunStart {
        let cancel = CancellationToken::new();
        let (idle_tx, idle_rx) = watch::channel(false);
        let id = shared.next_run_id;
        shared.next_run_id += 1;
        shared.run = Some(ActiveRun {
            id,
            cancel: cancel.clone(),
            idle: idle_rx,
        });
        shared.live.state.is_streaming = true;
        shared.live.streaming_event = None;
        shared.live.state.error_message = None;
        let context = AgentContext {
            system_prompt: shared.live.state.system_prompt.clone(),
            messages: shared.live.state.messages.clone(),
            tools: shared.live.state.tools.clone(),
        };
        let config = self.loop_config(shared);
        RunStart {
            kind,
            context,
            config,
            stream_fn: shared.config.stream_fn.clone(),
            cancel,
            guard: RunGuard {
                inner: Arc::clone(&self.inner),
                id,
                idle: idle_tx,
            },
        }
    }

    fn loop_config(&self, shared: &Shared) -> AgentLoopConfig {
        let options = &shared.config;
        let mut stream_options = SimpleStreamOptions {
            reasoning: shared.live.state.thinking_level.reasoning(),
            thinking_budgets: options.thinking_budgets,
            ..SimpleStreamOptions::default()
        };
        stream_options.base.session_id = options.session_id.clone();
        stream_options.base.transport = Some(options.transport);
        if let Some(max_retry_delay_ms) = options.max_retry_delay_ms {
            stream_options.base.max_retry_delay_ms = max_retry_delay_ms;
        }
        stream_options.base.on_payload = options.on_payload.clone();
        stream_options.base.on_response = options.on_response.clone();

        let weak = Arc::downgrade(&self.inner);
        let steering_source: MessageSourceFn = {
            let weak = weak.clone();
            Arc::new(move || {
                let drained = weak
                    .upgrade()
                    .map(|inner| inner.lock().steering.drain())
                    .unwrap_or_default();
                futures_util::future::ready(Ok(drained)).boxed()
            })
        };
        let follow_up_source: MessageSourceFn = {
            let weak = weak.clone();
            Arc::new(move || {
                let drained = weak
                    .upgrade()
                    .map(|inner| inner.lock().follow_up.drain())
                    .unwrap_or_default();
                futures_util::future::ready(Ok(drained)).boxed()
            })
        };
        // The prepare adapter looks the hook up anew at every call and passes the run's token (spec 2.2).
        let prepare_next_turn: Option<PrepareNextTurnFn> =
            options.prepare_next_turn.as_ref().map(|_| {
                let weak = weak.clone();
                let adapter: PrepareNextTurnFn =
                    Arc::new(move |turn: TurnContext, cancel: CancellationToken| {
                        let hook = weak
                            .upgrade()
                            .and_then(|inner| inner.lock().config.prepare_next_turn.clone());
                        match hook {
                            Some(AgentPrepareNextTurn::WithContext(hook)) => hook(turn, cancel),
                            Some(AgentPrepareNextTurn::Legacy(hook)) => hook(cancel),
                            None => futures_util::future::ready(Ok(None)).boxed(),
                        }
                    });
                adapter
            });

        AgentLoopConfig {
            model: shared.live.state.model.clone(),
            stream_options,
            convert_to_llm: options
                .convert_to_llm
                .clone()
                .unwrap_or_else(default_convert_to_llm_fn),
            transform_context: options.transform_context.clone(),
            get_api_key: options.get_api_key.clone(),
            should_stop_after_turn: options.should_stop_after_turn.clone(),
            prepare_next_turn,
            get_steering_messages: Some(steering_source),
            get_follow_up_messages: Some(follow_up_source),
            tool_execution: options.tool_execution,
            before_tool_call: options.before_tool_call.clone(),
            after_tool_call: options.after_tool_call.clone(),
            abort_grace_period: options.abort_grace_period,
        }
    }

    /// Cancels the active run (no-op when idle; never fails). The run still ends normally, with aborted semantics.
    pub fn abort(&self) {
        if let Some(run) = self.inner.lock().run.as_ref() {
            run.cancel.cancel();
        }
    }

    /// Resolves when the active run settled (after its `agent_end` listeners); at once when idle.
    pub fn wait_for_idle(&self) -> impl Future<Output = ()> + Send + 'static {
        let idle = self.inner.lock().run.as_ref().map(|run| run.idle.clone());
        async move {
            if let Some(mut idle) = idle {
                // An error means the run's guard is gone, i.e. the run settled.
                let _ = idle.wait_for(|settled| *settled).await;
            }
        }
    }

    /// Clears transcript, runtime state and both queues; keeps system prompt, model, thinking level and tools.
    pub fn reset(&self) -> Result<(), AgentError> {
        let mut shared = self.inner.lock();
        if shared.run.is_some() {
            return Err(AgentError::AlreadyProcessingReset);
        }
        shared.live.state.messages.clear();
        shared.live.state.is_streaming = false;
        shared.live.streaming_event = None;
        shared.live.state.pending_tool_calls.clear();
        shared.live.state.error_message = None;
        shared.steering.clear();
        shared.follow_up.clear();
        Ok(())
    }

    // ------------------------------------------------------------------ queues

    /// Queues a message to inject before the next request of the active run (or the next run). No events.
    pub fn steer(&self, message: AgentMessage) {
        self.inner.lock().steering.push(message);
    }

    /// Queues a message to deliver when the run would otherwise end. No events.
    pub fn follow_up(&self, message: AgentMessage) {
        self.inner.lock().follow_up.push(message);
    }

    /// Drops every queued steering message.
    pub fn clear_steering_queue(&self) {
        self.inner.lock().steering.clear();
    }

    /// Drops every queued follow-up message.
    pub fn clear_follow_up_queue(&self) {
        self.inner.lock().follow_up.clear();
    }

    /// Drops both queues.
    pub fn clear_all_queues(&self) {
        let mut shared = self.inner.lock();
        shared.steering.clear();
        shared.follow_up.clear();
    }

    /// True when either queue holds a message.
    pub fn has_queued_messages(&self) -> bool {
        let shared = self.inner.lock();
        !shared.steering.is_empty() || !shared.follow_up.is_empty()
    }

    /// The steering drain mode.
    pub fn steering_mode(&self) -> QueueMode {
        self.inner.lock().steering.mode
    }

    /// Sets the steering drain mode (effective at the next drain).
    pub fn set_steering_mode(&self, mode: QueueMode) {
        self.inner.lock().steering.mode = mode;
    }

    /// The follow-up drain mode.
    pub fn follow_up_mode(&self) -> QueueMode {
        self.inner.lock().follow_up.mode
    }

    /// Sets the follow-up drain mode (effective at the next drain).
    pub fn set_follow_up_mode(&self, mode: QueueMode) {
        self.inner.lock().follow_up.mode = mode;
    }
}

impl RunStart {
    /// Runs the loop, converts a loop failure into the failure sequence (spec 2.5), then settles.
    async fn execute(self) -> Result<(), AgentError> {
        let RunStart {
            kind,
            context,
            config,
            stream_fn,
            cancel,
            guard,
        } = self;
        let sink: Arc<dyn AgentEventSink> = Arc::new(RunSink {
            inner: Arc::clone(&guard.inner),
            run_id: guard.id,
            cancel: cancel.clone(),
        });
        let outcome = match kind {
            RunKind::Prompt(messages) => {
                run_agent_loop(
                    messages,
                    context,
                    config,
                    Arc::clone(&sink),
                    cancel.clone(),
                    stream_fn,
                )
                .await
            }
            RunKind::PromptWithoutInitialSteering(messages) => {
                run_agent_loop_without_initial_steering(
                    messages,
                    context,
                    config,
                    Arc::clone(&sink),
                    cancel.clone(),
                    stream_fn,
                )
                .await
            }
            RunKind::Continue => {
                run_agent_loop_continue(
                    context,
                    config,
                    Arc::clone(&sink),
                    cancel.clone(),
                    stream_fn,
                )
                .await
            }
        };
        if let Err(error) = outcome {
            report_failure(&guard.inner, sink.as_ref(), &cancel, &error).await?;
        }
        drop(guard);
        Ok(())
    }
}

async fn report_failure(
    inner: &Arc<AgentInner>,
    sink: &dyn AgentEventSink,
    cancel: &CancellationToken,
    error: &AgentLoopError,
) -> Result<(), AgentError> {
    let model = inner.lock().live.state.model.clone();
    for event in failure_events(failure_message(&model, cancel, &error.to_string())) {
        sink.emit_owned(event)
            .await
            .map_err(|error| AgentError::Listener(error.message().to_string()))?;
    }
    Ok(())
}

/// Delivers one run's events: the reducer first, then every listener in subscription order (spec 6.4).
///
/// The work starts when `emit` is called (the loop awaits it right away): listeners that finish synchronously cost
/// no allocation; the first one that does not is awaited, and the rest follow in order.
struct RunSink {
    inner: Arc<AgentInner>,
    run_id: u64,
    cancel: CancellationToken,
}

impl AgentEventSink for RunSink {
    fn emit(&self, event: Arc<AgentEvent>) -> EmitFuture {
        {
            let mut shared = self.inner.lock();
            // Events of a run that already settled are refused (spec 2.5 hazard; 6.7 d).
            if shared.run.as_ref().map(|run| run.id) != Some(self.run_id) {
                return EmitFuture::ready(Ok(()));
            }
            shared.live.reduce(&event);
        }
        let mut last_called = 0;
        while let Some((id, listener)) = next_listener(&self.inner, last_called) {
            last_called = id;
            let listener = match listener {
                Subscriber::Sync(listener) => {
                    match std::panic::catch_unwind(AssertUnwindSafe(|| {
                        listener(&event, &self.cancel)
                    })) {
                        Ok(Ok(())) => continue,
                        Ok(Err(error)) => {
                            return EmitFuture::ready(Err(EmitError::new(error.message())));
                        }
                        Err(panic) => {
                            return EmitFuture::ready(Err(EmitError::new(panic_message(
                                "listener", &*panic,
                            ))));
                        }
                    }
                }
                Subscriber::Async(listener) => listener,
            };
            let started = std::panic::catch_unwind(AssertUnwindSafe(|| {
                let mut call = listener(Arc::clone(&event), self.cancel.clone());
                let poll = call
                    .as_mut()
                    .poll(&mut TaskContext::from_waker(Waker::noop()));
                (call, poll)
            }));
            match started {
                Ok((_, Poll::Ready(Ok(())))) => {}
                Ok((_, Poll::Ready(Err(error)))) => {
                    return EmitFuture::ready(Err(EmitError::new(error.message())));
                }
                Err(panic) => {
                    return EmitFuture::ready(Err(EmitError::new(panic_message(
                        "listener", &*panic,
                    ))));
                }
                Ok((call, Poll::Pending)) => {
                    let inner = Arc::clone(&self.inner);
                    let cancel = self.cancel.clone();
                    return EmitFuture::new(async move {
                        finish_listener(call).await?;
                        dispatch_after(&inner, &cancel, &event, last_called).await
                    });
                }
            }
        }
        EmitFuture::ready(Ok(()))
    }
}

/// The first listener subscribed after `last_called` (live iteration: later subscriptions are seen, removed
/// listeners are skipped).
fn next_listener(inner: &AgentInner, last_called: u64) -> Option<(u64, Subscriber)> {
    let shared = inner.lock();
    shared
        .listeners
        .iter()
        .find(|(id, _)| *id > last_called)
        .map(|(id, listener)| (*id, listener.clone()))
}

async fn finish_listener(call: HookFuture<()>) -> Result<(), EmitError> {
    match AssertUnwindSafe(call).catch_unwind().await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => Err(EmitError::new(error.message())),
        Err(panic) => Err(EmitError::new(panic_message("listener", &*panic))),
    }
}

/// Awaits the listeners subscribed after `last_called`, in order.
async fn dispatch_after(
    inner: &AgentInner,
    cancel: &CancellationToken,
    event: &Arc<AgentEvent>,
    mut last_called: u64,
) -> Result<(), EmitError> {
    while let Some((id, listener)) = next_listener(inner, last_called) {
        last_called = id;
        let call = match listener {
            Subscriber::Sync(listener) => {
                std::panic::catch_unwind(AssertUnwindSafe(|| listener(event, cancel)))
                    .map_err(|panic| EmitError::new(panic_message("listener", &*panic)))?
                    .map_err(|error| EmitError::new(error.message()))?;
                continue;
            }
            Subscriber::Async(listener) => std::panic::catch_unwind(AssertUnwindSafe(|| {
                listener(Arc::clone(event), cancel.clone())
            }))
            .map_err(|panic| EmitError::new(panic_message("listener", &*panic)))?,
        };
        finish_listener(call).await?;
    }
    Ok(())
}
