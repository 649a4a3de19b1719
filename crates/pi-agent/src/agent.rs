//! [`Agent`]: the stateful wrapper around the loop (spec 2) — state, subscriptions, queues and cancellation. How a
//! run begins, executes and settles is `run_lifecycle`; how its events reach the listeners is `listeners`.
//!
//! Concurrency: an `Agent` is a cheap, cloneable, `Send + Sync` handle. All state sits behind one std mutex that
//! is locked only inside short synchronous sections, never across an `.await`; listeners run without it. One task
//! can be inside `prompt` while others call `abort`, `steer` or read the state.
//!
//! A run lives inside the future returned by `prompt` / `continue_run`: keep polling it (spawn it if you need to
//! do something else meanwhile). Dropping that future drops the run; the agent still returns to idle.

use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use futures_util::FutureExt;
use pi_ai::{Model, ModelThinkingLevel};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::agent_event::AgentEvent;
use crate::agent_message::AgentMessage;
use crate::agent_options::{AgentConfig, AgentOptions};
use crate::agent_state::{AgentState, LiveState};
use crate::agent_tool::SharedAgentTool;
use crate::listeners::{Listener, Subscriber, Subscription};
use crate::loop_config::HookError;
use crate::message_queue::{MessageQueue, QueueMode};
use crate::prompt_input::PromptInput;
use crate::run_lifecycle::{RunKind, run_with_lifecycle};

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

/// What every clone of an [`Agent`] shares.
pub(crate) struct AgentInner {
    shared: Mutex<Shared>,
}

/// The agent's mutable part, behind one lock that is never held across an `.await`.
pub(crate) struct Shared {
    pub(crate) live: LiveState,
    pub(crate) config: AgentConfig,
    pub(crate) steering: MessageQueue,
    pub(crate) follow_up: MessageQueue,
    /// In subscription order; ids only grow.
    pub(crate) listeners: Vec<(u64, Subscriber)>,
    pub(crate) next_listener_id: u64,
    pub(crate) run: Option<ActiveRun>,
    pub(crate) next_run_id: u64,
}

/// The registered run.
pub(crate) struct ActiveRun {
    pub(crate) id: u64,
    pub(crate) cancel: CancellationToken,
    /// Turns `true` once the run settled.
    pub(crate) idle: watch::Receiver<bool>,
}

impl AgentInner {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Shared> {
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

impl fmt::Debug for AgentInner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AgentInner")
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
        let run = {
            let mut shared = self.inner.lock();
            if shared.run.is_some() {
                Err(AgentError::AlreadyProcessingPrompt)
            } else {
                let kind = RunKind::Prompt {
                    messages,
                    skip_initial_steering_poll: false,
                };
                Ok(run_with_lifecycle(&self.inner, &mut shared, kind))
            }
        };
        async move { run?.await }
    }

    /// Continues from the current transcript (pi's `continue()`, spec 2.4).
    ///
    /// With an assistant tail it delivers queued steering messages (first) or follow-ups as prompts, else fails
    /// with [`AgentError::CannotContinueFrom`].
    pub fn continue_run(&self) -> impl Future<Output = Result<(), AgentError>> + Send + 'static {
        let run = {
            let mut shared = self.inner.lock();
            continue_kind(&mut shared)
                .map(|kind| run_with_lifecycle(&self.inner, &mut shared, kind))
        };
        async move { run?.await }
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

/// What `continue_run` starts, given the transcript and the queues (queued messages it delivers are drained).
fn continue_kind(shared: &mut Shared) -> Result<RunKind, AgentError> {
    if shared.run.is_some() {
        return Err(AgentError::AlreadyProcessingContinue);
    }
    match shared.live.state.messages.last() {
        None => Err(AgentError::NoMessagesToContinue),
        Some(AgentMessage::Assistant(_)) => {
            let steering = shared.steering.drain();
            if !steering.is_empty() {
                return Ok(RunKind::Prompt {
                    messages: steering,
                    skip_initial_steering_poll: true,
                });
            }
            let follow_ups = shared.follow_up.drain();
            if !follow_ups.is_empty() {
                return Ok(RunKind::Prompt {
                    messages: follow_ups,
                    skip_initial_steering_poll: false,
                });
            }
            Err(AgentError::CannotContinueFrom("assistant".into()))
        }
        Some(_) => Ok(RunKind::Continue),
    }
}
