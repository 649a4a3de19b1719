//! [`DesktopSession`]: one conversation as the app runs it — an Agent built from the settings, the desktop
//! tools and a `stream_fn` over pi-ai's `Models`, plus a forwarder that turns every AgentEvent into numbered wire
//! envelopes for an [`EnvelopeSink`]. The conversations service runs one per open conversation; `pi-chat` and the
//! tests use it alone.
//!
//! Contracts:
//! - Create it inside a tokio runtime ([`DesktopSession::start`] spawns the forwarder, runs are spawned tasks).
//! - Envelopes come out in event order. The Agent's listener awaits a bounded channel to the forwarder, so a
//!   forwarder that falls behind slows the run instead of growing memory.
//! - [`DesktopSession::start_prompt`] and [`DesktopSession::start_continue`] return as soon as the run is accepted
//!   (with its [`RunId`]) or refused ([`SessionError::refused_before_running`]: busy, nothing to continue from).
//!   One run at a time: a run holds the session's run gate until its `idle` notice went to the forwarder, which
//!   the session sends after `prompt()`/`continue()` settled (the book's settling rule: Send comes back on
//!   `idle`, not on `agent_end`). [`RunHandle::finished`] resolves then. [`DesktopSession::prompt`] is both
//!   steps in one call.
//! - `abort`, `steer`, `follow_up` and `get_state` work from any task at any time.
//! - Steering and follow-up messages wait in the session's queue (`session_queue`, with the reason it is the
//!   host's and not pi-agent's), each with an id, until the loop injects them, the user cancels them, or a run ends
//!   first: then they are held for the user ([`DesktopSession::send_queued`] or [`DesktopSession::cancel_queued`]),
//!   never delivered by themselves. Every change is a host notice on the session's stream.
//! - Approval: MCP calls (and desktop tool calls while `askBeforeBuiltInTools` is on) ask first; "allow in this
//!   conversation" grants are kept where the recorder saves the conversation, so reopening it keeps them.
//! - Versions and branches (`branches`): regenerate, edit, switching versions, deleting a pair and continuing a
//!   cut-off answer replace the Agent's messages with the store's shown branch between runs, and are refused
//!   with [`SessionError::RunActive`] during one. With a recorder, every run's last notices before `idle` include
//!   `versions`, where each message of the shown branch stands among its versions.
//! - Persistence: an optional [`store::ConversationRecorder`](crate::store::ConversationRecorder) sees every event
//!   (it checkpoints the streaming assistant message at most once a second and saves each `message_end`; its
//!   SQLite work runs under `spawn_blocking`, and only for the events it writes). A failure becomes an `error`
//!   notice (source `persistence`), never a failed run; the recorder keeps failed saves queued and writes them,
//!   in order, with the next event.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, TryLockError};
use std::time::Duration;

use pi_agent::{
    Agent, AgentError, AgentEvent, AgentInitialState, AgentMessage, AgentOptions, HookError,
    PromptInput, StreamFn,
};
use pi_ai::{ModelThinkingLevel, StopReason};
use serde::Serialize;
use tokio::sync::{OwnedMutexGuard, mpsc, oneshot};

mod branches;
mod message_queue;
mod prompt_images;
mod run_handle;
mod run_tools;
mod session_queue;
mod transcript_end;
mod turn_requests;

pub use branches::{CONTINUATION_INSTRUCTION, CONTINUATION_ROLE};
pub use message_queue::{
    QueueError, QueueKind, QueueMode, QueuedMessage, QueuedMessageId, QueuedStatus,
};
pub use run_handle::RunHandle;
pub use transcript_end::LeftOut;

/// The image block a [`SessionPrompt`] carries (pi-ai's), for callers without a pi-ai dependency.
pub use pi_ai::ImageContent;
pub use prompt_images::{
    MAX_IMAGE_BYTES, MAX_PROMPT_IMAGES, PromptImageError, SUPPORTED_IMAGE_TYPES, SessionPrompt,
    validate_prompt_images,
};

use crate::approval::{ApprovalDecision, ApprovalError};
use crate::desktop_paths::DesktopPaths;
use crate::desktop_tools::DesktopToolContext;
use crate::diagnostics::Diagnostics;
use crate::mcp::McpServers;
use crate::model_registry::{ModelSetupError, model_for, models_reporting_retries};
use crate::session::session_queue::SessionQueue;
use crate::session::transcript_end::shows_as_row;
use crate::settings::ResolvedSettings;
use crate::store::{ConversationRecorder, MessageVersion, StoreError};
use crate::wire::{
    DeltaCoalescer, Envelope, EnvelopeSink, ForwardItem, HostNotice, NoticeSource, RunId,
    spawn_forwarder,
};

/// Events buffered between the Agent's listener and the forwarder by default.
pub const DEFAULT_ENVELOPE_CAPACITY: usize = 256;

/// How to build a session.
#[derive(Clone)]
pub struct SessionOptions {
    /// The provider settings (model, system prompt, thinking level, language, key).
    pub settings: ResolvedSettings,
    /// The user's folders for the desktop tools.
    pub paths: DesktopPaths,
    /// A transcript to continue (for example, loaded from the store).
    pub messages: Vec<AgentMessage>,
    /// Replaces the stream function built from the settings (tests, custom model layers).
    pub stream_fn: Option<StreamFn>,
    /// Capacity of the channel from the Agent's listener to the forwarder.
    pub envelope_capacity: usize,
    /// The coalescing window for deltas (zero disables coalescing).
    pub coalesce_window: Duration,
    /// Saves the conversation as it streams (checkpoints and completed messages).
    pub recorder: Option<Arc<Mutex<ConversationRecorder>>>,
    /// MCP servers whose tools the runs get (each call asks the user first, unless granted).
    pub mcp: Option<Arc<McpServers>>,
}

impl SessionOptions {
    /// Options with the defaults: model layer from the settings, 256 envelopes, 16 ms coalescing.
    pub fn new(settings: ResolvedSettings, paths: DesktopPaths) -> SessionOptions {
        SessionOptions {
            settings,
            paths,
            messages: Vec::new(),
            stream_fn: None,
            envelope_capacity: DEFAULT_ENVELOPE_CAPACITY,
            coalesce_window: crate::wire::COALESCE_WINDOW,
            recorder: None,
            mcp: None,
        }
    }
}

/// Why a session call failed. `Display` is safe to show the user.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// Refused before running: a run is active (pi's message: use steer/follow-up or wait).
    #[error("{0}")]
    Busy(AgentError),
    /// Refused before running: the transcript has nothing to continue from (pi's message).
    #[error("{0}")]
    NothingToContinue(AgentError),
    /// The run started and then failed outside the model's own error reporting (a listener failed).
    #[error("{0}")]
    Agent(AgentError),
    /// The model layer could not be set up.
    #[error(transparent)]
    Setup(#[from] ModelSetupError),
    /// Refused before running: regenerate, edit, a version switch or a deletion while a run is active.
    #[error(
        "a run is active: wait until the answer is complete, or stop it, before changing versions or messages"
    )]
    RunActive,
    /// Refused: the session is not saved, so it keeps no versions.
    #[error("this conversation is not saved, so it has no versions")]
    NotRecorded,
    /// Refused before running: Continue needs an answer that ended at the output length limit.
    #[error("the last answer did not stop at the length limit, so there is nothing to continue")]
    NotTruncated,
    /// The store refused or failed a version or branch change (nothing ran).
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl SessionError {
    /// True when nothing ran: no event was sent and no `idle` will come for this call.
    pub fn refused_before_running(&self) -> bool {
        match self {
            SessionError::Busy(_)
            | SessionError::NothingToContinue(_)
            | SessionError::RunActive
            | SessionError::NotRecorded
            | SessionError::NotTruncated
            | SessionError::Store(_) => true,
            SessionError::Agent(_) | SessionError::Setup(_) => false,
        }
    }
}

/// Which call starts a run; picks pi's refusal while another one is active.
#[derive(Clone, Copy, Debug)]
enum RunKind {
    Prompt,
    Continue,
}

impl RunKind {
    fn busy(self) -> SessionError {
        SessionError::Busy(match self {
            RunKind::Prompt => AgentError::AlreadyProcessingPrompt,
            RunKind::Continue => AgentError::AlreadyProcessingContinue,
        })
    }
}

/// A snapshot for the UI (`get_state`), in pi's JSON names.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SessionState {
    /// A run is active (until it settles).
    pub is_streaming: bool,
    /// Tool calls running now, in start order.
    pub pending_tool_calls: Vec<String>,
    /// The error of the most recent failed or aborted turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error_message: Option<String>,
    /// The transcript, in pi's JSON.
    #[ts(type = "Array<import(\"../pi\").AgentMessage>")]
    pub messages: Vec<AgentMessage>,
    /// The model in use.
    pub model: ModelSummary,
    /// The thinking level.
    #[ts(type = "import(\"../pi\").ThinkingLevel")]
    pub thinking_level: ModelThinkingLevel,
    /// Where each user and assistant message of the stored shown branch stands among its versions; left out for
    /// a session that is not saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub versions: Option<Vec<MessageVersion>>,
    /// What of the transcript's beginning `messages` leaves out ([`SessionState::from_end`]); absent when it
    /// holds all of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub left_out: Option<LeftOut>,
}

/// Which model a session talks to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ModelSummary {
    /// pi's provider id.
    pub provider: String,
    /// The model id.
    pub id: String,
    /// The wire API.
    pub api: String,
    /// Tokens of context the model takes (input and output together).
    #[ts(type = "number")]
    pub context_window: u64,
    /// Whether it reads images.
    pub image_input: bool,
    /// Whether its price is known, so the cost of its answers means something (the known-models table states no
    /// price of zero: a model it has no price for gets all-zero rates).
    pub priced: bool,
}

/// What [`DesktopSession::send_queued`] did with the message.
#[derive(Debug)]
pub enum QueuedSend {
    /// The session was idle: the message is the prompt of this run.
    Started(RunHandle),
    /// A run is active: the message waits as steering for its next steering poll.
    Steering(QueuedMessage),
}

/// One conversation. Cheap to clone; clones share the Agent and the channel.
#[derive(Clone)]
pub struct DesktopSession {
    inner: Arc<SessionInner>,
}

struct SessionInner {
    agent: Agent,
    tool_context: Mutex<DesktopToolContext>,
    run_tools: run_tools::RunTools,
    /// Held by the run in progress until its `idle` went to the forwarder.
    run_gate: Arc<tokio::sync::Mutex<()>>,
    /// The last run id handed out.
    last_run: AtomicU64,
    forward_tx: mpsc::Sender<ForwardItem>,
    last_state: Arc<Mutex<Option<HostNotice>>>,
    diagnostics: Diagnostics,
    queue: Arc<SessionQueue>,
    recorder: Option<Arc<Mutex<ConversationRecorder>>>,
}

impl DesktopSession {
    /// Builds the Agent and starts the forwarder, which hands every envelope to `sink`.
    pub fn start(
        options: SessionOptions,
        sink: Arc<dyn EnvelopeSink>,
    ) -> Result<DesktopSession, SessionError> {
        let settings = &options.settings;
        let (forward_tx, forward_rx) = mpsc::channel(options.envelope_capacity.max(1));
        let stream_fn = match options.stream_fn.clone() {
            Some(stream_fn) => stream_fn,
            None => Arc::new(models_reporting_retries(
                settings,
                turn_requests::retry_notices(forward_tx.clone()),
            )?)
            .stream_fn(),
        };
        let stream_fn = turn_requests::reporting_turn_requests(stream_fn, forward_tx.clone());
        let tool_context = DesktopToolContext::new(options.paths.clone(), settings.language);
        let diagnostics = tool_context.diagnostics.clone();
        let run_tools = run_tools::RunTools::new(
            options.mcp.clone(),
            run_tools::conversation_grants(options.recorder.as_ref()),
            settings.ask_before_built_in_tools,
        );
        let model = model_for(settings);
        run_tools.set_model_takes_images(takes_images(&model));
        let mut agent_options = AgentOptions::new(stream_fn);
        agent_options.initial_state = AgentInitialState {
            system_prompt: Some(settings.system_prompt.clone()),
            model: Some(model),
            thinking_level: Some(settings.thinking_level),
            tools: run_tools.tools(&tool_context),
            messages: options.messages.clone(),
        };
        agent_options.config.before_tool_call =
            Some(run_tools.before_tool_call(forward_tx.clone()));
        agent_options.config.convert_to_llm = Some(branches::convert_to_llm());
        let queue = SessionQueue::new(
            settings.steering_mode,
            settings.follow_up_mode,
            forward_tx.clone(),
        );
        // The host applies the user's modes when it hands messages over; each poll takes all it was handed.
        agent_options.steering_mode = pi_agent::QueueMode::All;
        agent_options.follow_up_mode = pi_agent::QueueMode::All;
        agent_options.config.should_stop_after_turn = Some(queue.should_stop_after_turn());
        let agent = Agent::new(agent_options);
        run_tools.bind(agent.downgrade());
        queue.bind(agent.downgrade());

        // The forwarder ends by itself once the last sender (this session's, its listener's) is gone, after
        // delivering everything, so dropping the session never loses a run's last envelopes.
        spawn_forwarder(
            forward_rx,
            sink,
            DeltaCoalescer::new(options.coalesce_window),
        );
        let last_state = Arc::new(Mutex::new(None));
        subscribe_forwarder(
            &agent,
            forward_tx.clone(),
            Arc::clone(&last_state),
            Persistence {
                recorder: options.recorder.clone(),
            },
            Arc::clone(&queue),
        );
        let inner = SessionInner {
            agent,
            tool_context: Mutex::new(tool_context),
            run_tools,
            run_gate: Arc::new(tokio::sync::Mutex::new(())),
            last_run: AtomicU64::new(0),
            forward_tx,
            last_state,
            diagnostics,
            queue,
            recorder: options.recorder.clone(),
        };
        Ok(DesktopSession {
            inner: Arc::new(inner),
        })
    }

    /// [`DesktopSession::start`] with the envelopes on an unbounded channel (a session used alone).
    pub fn start_with_channel(
        options: SessionOptions,
    ) -> Result<(DesktopSession, mpsc::UnboundedReceiver<Envelope>), SessionError> {
        let (envelope_tx, envelope_rx) = mpsc::unbounded_channel();
        let session = DesktopSession::start(options, Arc::new(envelope_tx))?;
        Ok((session, envelope_rx))
    }

    /// Starts a prompt (text, or a [`SessionPrompt`] with images) and returns once it is accepted; refused with
    /// [`SessionError::Busy`] while a run is active.
    pub async fn start_prompt(
        &self,
        prompt: impl Into<SessionPrompt>,
    ) -> Result<RunHandle, SessionError> {
        let gate = self.take_run_gate(RunKind::Prompt)?;
        Ok(self.start_prompt_with_gate(gate, prompt.into()).await)
    }

    async fn start_prompt_with_gate(
        &self,
        gate: OwnedMutexGuard<()>,
        prompt: SessionPrompt,
    ) -> RunHandle {
        self.inner.run_tools.servers_started().await;
        self.refresh_tools();
        let input = prompt.into_input();
        let transcript = self.inner.agent.state().messages;
        // The gate is held and no run streams, so the Agent accepts this prompt and its initial steering poll
        // takes what is handed over.
        self.inner.queue.hand_over_before_run(&self.inner.agent);
        let run = self.inner.agent.prompt(input);
        self.launch(gate, transcript, run).await
    }

    /// A run whose prompt is `messages` as they are (pi's `prompt(messages)`), with the gate held.
    async fn start_messages_with_gate(
        &self,
        gate: OwnedMutexGuard<()>,
        messages: Vec<AgentMessage>,
    ) -> RunHandle {
        self.inner.run_tools.servers_started().await;
        self.refresh_tools();
        let transcript = self.inner.agent.state().messages;
        self.inner.queue.hand_over_before_run(&self.inner.agent);
        let run = self.inner.agent.prompt(PromptInput::Messages(messages));
        self.launch(gate, transcript, run).await
    }

    /// Continues from the transcript (pi's `continue()`) and returns once accepted; refused while a run is
    /// active or when there is nothing to continue from.
    ///
    /// This is the UI's Retry: an answer that ended in `error` or `aborted` is dropped from the Agent's
    /// transcript first (it stays in the store and on screen), so the model is asked again from the messages
    /// before it. pi's `continue()` would refuse an assistant tail, and providers skip such messages anyway.
    pub async fn start_continue(&self) -> Result<RunHandle, SessionError> {
        let gate = self.take_run_gate(RunKind::Continue)?;
        self.start_continue_with_gate(gate).await
    }

    async fn start_continue_with_gate(
        &self,
        gate: OwnedMutexGuard<()>,
    ) -> Result<RunHandle, SessionError> {
        self.inner.run_tools.servers_started().await;
        self.refresh_tools();
        self.inner.agent.update_messages(|messages| {
            let failed_tail = messages
                .last()
                .and_then(AgentMessage::as_assistant)
                .is_some_and(|message| {
                    matches!(message.stop_reason, StopReason::Error | StopReason::Aborted)
                });
            if failed_tail {
                messages.pop();
            }
        });
        let transcript = self.inner.agent.state().messages;
        self.inner.queue.hand_over_before_run(&self.inner.agent);
        let run = self.inner.agent.continue_run();
        // The Agent decides on the call whether the run starts; a refused one resolves at once with its reason.
        if !self.inner.agent.is_streaming() {
            self.inner.queue.reclaim(&self.inner.agent);
            return Err(match run.await {
                Err(error @ AgentError::AlreadyProcessingContinue) => SessionError::Busy(error),
                Err(error) => SessionError::NothingToContinue(error),
                Ok(()) => SessionError::NothingToContinue(AgentError::NoMessagesToContinue),
            });
        }
        Ok(self.launch(gate, transcript, run).await)
    }

    /// Runs one prompt to its end: [`DesktopSession::start_prompt`] and [`RunHandle::finished`].
    pub async fn prompt(&self, prompt: impl Into<SessionPrompt>) -> Result<(), SessionError> {
        self.start_prompt(prompt).await?.finished().await
    }

    /// Continues to the end: [`DesktopSession::start_continue`] and [`RunHandle::finished`].
    pub async fn continue_run(&self) -> Result<(), SessionError> {
        self.start_continue().await?.finished().await
    }

    /// The user's answer to an `approval_requested` question of this session.
    pub fn resolve_approval(
        &self,
        request_id: u64,
        decision: ApprovalDecision,
    ) -> Result<(), ApprovalError> {
        self.inner
            .run_tools
            .approvals()
            .resolve(request_id, decision)
    }

    /// Forgets the "allow in this conversation" grant of `tool` of `server` (the caller removes it from the store):
    /// the tool's next call asks again.
    pub fn forget_conversation_grant(&self, server: &str, tool: &str) {
        self.inner
            .run_tools
            .approvals()
            .forget_conversation_grant(server, tool);
    }

    /// A run gets the tools of the servers ready now (a server that became ready serves from this run on).
    fn refresh_tools(&self) {
        let tools = {
            let tool_context = self
                .inner
                .tool_context
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            self.inner.run_tools.tools(&tool_context)
        };
        self.inner.agent.set_tools(tools);
    }

    /// True when both handles are the same session (clones of one another).
    pub fn is_same_session(&self, other: &DesktopSession) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// True from a run's acceptance until its `idle` went to the forwarder.
    pub fn is_running(&self) -> bool {
        self.inner.run_gate.try_lock().is_err() || self.inner.agent.is_streaming()
    }

    fn take_run_gate(&self, kind: RunKind) -> Result<OwnedMutexGuard<()>, SessionError> {
        let gate = Arc::clone(&self.inner.run_gate)
            .try_lock_owned()
            .map_err(|_| kind.busy())?;
        if self.inner.agent.is_streaming() {
            return Err(kind.busy());
        }
        Ok(gate)
    }

    /// Announces the accepted run to the forwarder, then drives it on its own task: the run, then its settling
    /// notices, then the gate opens.
    async fn launch(
        &self,
        gate: OwnedMutexGuard<()>,
        transcript: Vec<AgentMessage>,
        run: impl Future<Output = Result<(), AgentError>> + Send + 'static,
    ) -> RunHandle {
        let run_id = RunId(self.inner.last_run.fetch_add(1, Ordering::Relaxed) + 1);
        let _ = self
            .inner
            .forward_tx
            .send(ForwardItem::RunStarted {
                run: run_id,
                transcript,
            })
            .await;
        let (finished_tx, finished) = oneshot::channel();
        let session = self.clone();
        tokio::spawn(async move {
            let result = run.await;
            session.settle().await;
            drop(gate);
            let _ = finished_tx.send(result);
        });
        RunHandle { run_id, finished }
    }

    /// Switches to new settings (model, key, system prompt, thinking level, language of the tools' messages).
    /// Safe while a run is active: a run keeps the snapshot it started with, and the next run uses these.
    pub fn apply_settings(&self, settings: &ResolvedSettings) -> Result<(), SessionError> {
        let stream_fn = turn_requests::reporting_turn_requests(
            Arc::new(models_reporting_retries(
                settings,
                turn_requests::retry_notices(self.inner.forward_tx.clone()),
            )?)
            .stream_fn(),
            self.inner.forward_tx.clone(),
        );
        self.inner
            .run_tools
            .set_model_takes_images(takes_images(&model_for(settings)));
        let tools = {
            let mut tool_context = self
                .inner
                .tool_context
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            tool_context.language = settings.language;
            self.inner.run_tools.tools(&tool_context)
        };
        self.inner
            .run_tools
            .set_ask_before_built_in_tools(settings.ask_before_built_in_tools);
        let agent = &self.inner.agent;
        agent.configure(|config| config.stream_fn = stream_fn);
        agent.set_model(model_for(settings));
        agent.set_system_prompt(settings.system_prompt.clone());
        agent.set_thinking_level(settings.thinking_level);
        agent.set_tools(tools);
        self.inner
            .queue
            .set_modes(settings.steering_mode, settings.follow_up_mode);
        Ok(())
    }

    /// Stops the active run (no-op when idle). The run ends as `aborted` and `prompt` still returns normally.
    pub fn abort(&self) {
        self.inner.agent.abort();
    }

    /// Queues a steering message: delivered at the active run's next steering poll (after the current tool
    /// batch, or when the answer ends), or at the next run's first poll. The window hears `message_queued`.
    pub async fn steer(&self, text: impl Into<String>) -> QueuedMessage {
        self.inner.queue.push(QueueKind::Steer, text.into()).await
    }

    /// Queues a follow-up: delivered when the run would otherwise stop (the next run's, when idle).
    pub async fn follow_up(&self, text: impl Into<String>) -> QueuedMessage {
        self.inner
            .queue
            .push(QueueKind::FollowUp, text.into())
            .await
    }

    /// Every queued message, waiting or held, in the order queued.
    pub fn queued_messages(&self) -> Vec<QueuedMessage> {
        self.inner.queue.messages()
    }

    /// Cancels a queued message before the loop takes it (`queued_message_cancelled`); refused once the turn it
    /// goes into has taken it, or when it is gone.
    pub async fn cancel_queued(&self, id: QueuedMessageId) -> Result<(), QueueError> {
        self.inner.queue.cancel(id).await
    }

    /// Sends a queued (typically held) message now: when the session is idle it becomes the prompt of a new run
    /// (`queued_message_consumed`, then the run); while a run is active it waits as steering for that run.
    pub async fn send_queued(&self, id: QueuedMessageId) -> Result<QueuedSend, QueueError> {
        match self.take_run_gate(RunKind::Prompt) {
            Ok(gate) => {
                let text = self.inner.queue.take_for_prompt(id).await?;
                let run = self
                    .start_prompt_with_gate(gate, SessionPrompt::from(text))
                    .await;
                Ok(QueuedSend::Started(run))
            }
            Err(_busy) => self
                .inner
                .queue
                .steer_again(id)
                .await
                .map(QueuedSend::Steering),
        }
    }

    /// The current state, for the UI.
    pub fn get_state(&self) -> SessionState {
        let mut state = self.state_without_versions();
        state.versions = self
            .inner
            .recorder
            .is_some()
            .then(|| self.message_versions());
        state
    }

    /// The current state with only the end of a transcript longer than `keep` messages
    /// ([`SessionState::from_end`]): the store is asked for the versions of the kept messages alone, so opening
    /// a long conversation does not read every message's version.
    pub fn get_state_from_end(&self, keep: usize) -> SessionState {
        let mut state = self.state_without_versions().from_end(keep);
        if self.inner.recorder.is_some() {
            let rows = state
                .messages
                .iter()
                .filter(|message| shows_as_row(message))
                .count();
            state.versions = Some(self.last_message_versions(rows));
            if state.left_out.is_some() {
                state.keep_versions_of_own_messages();
            }
        }
        state
    }

    /// The current state without the versions (which a recorded session reads from the store).
    pub(crate) fn state_without_versions(&self) -> SessionState {
        let state = self.inner.agent.state();
        SessionState {
            is_streaming: state.is_streaming,
            pending_tool_calls: state.pending_tool_calls,
            error_message: state.error_message,
            messages: state.messages,
            model: model_summary(&state.model),
            thinking_level: state.thinking_level,
            versions: None,
            left_out: None,
        }
    }

    /// Sends a host notice (for example a settings or persistence error found outside the run).
    pub async fn notify(&self, source: NoticeSource, message: impl Into<String>) {
        let notice = HostNotice::Error {
            source,
            message: message.into(),
        };
        let _ = self
            .inner
            .forward_tx
            .send(ForwardItem::Notice(notice))
            .await;
    }

    /// The diagnostics ring the desktop tools write to.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.inner.diagnostics
    }

    /// After a run: what is still queued is held for the user, then the final state notice (when it changed) and
    /// `idle`, the run's last envelope.
    async fn settle(&self) {
        self.inner.queue.hold_remaining(&self.inner.agent).await;
        let state = state_notice(&self.inner.agent);
        let forward_tx = &self.inner.forward_tx;
        if replace_if_changed(&self.inner.last_state, &state) {
            let _ = forward_tx.send(ForwardItem::Notice(state)).await;
        }
        if self.inner.recorder.is_some() {
            let session = self.clone();
            if let Ok(versions) =
                tokio::task::spawn_blocking(move || session.message_versions()).await
            {
                let notice = HostNotice::Versions { versions };
                let _ = forward_tx.send(ForwardItem::Notice(notice)).await;
            }
        }
        let _ = forward_tx.send(ForwardItem::Notice(HostNotice::Idle)).await;
    }
}

fn state_notice(agent: &Agent) -> HostNotice {
    HostNotice::State {
        is_streaming: agent.is_streaming(),
        pending_tool_calls: agent.pending_tool_calls(),
        error_message: agent.error_message(),
    }
}

/// Stores `state` as the last one sent; true when it differs from the previous.
fn replace_if_changed(last_state: &Mutex<Option<HostNotice>>, state: &HostNotice) -> bool {
    let mut last = last_state.lock().unwrap_or_else(PoisonError::into_inner);
    if last.as_ref() == Some(state) {
        return false;
    }
    *last = Some(state.clone());
    true
}

/// What the listener saves.
#[derive(Clone)]
struct Persistence {
    recorder: Option<Arc<Mutex<ConversationRecorder>>>,
}

impl Persistence {
    /// Saves what `event` completes or checkpoints; the texts of failures, in order.
    ///
    /// The checkpoint throttle is decided here, on the event's task, before any blocking work: of a long
    /// answer's deltas only the one a checkpoint is due for (at most one a second) goes to a blocking thread.
    async fn save(&self, event: &Arc<AgentEvent>) -> Vec<String> {
        let mut failures = Vec::new();
        if let Some(recorder) = &self.recorder
            && writes_now(recorder, event)
        {
            let recorder = Arc::clone(recorder);
            let event = Arc::clone(event);
            let saved = tokio::task::spawn_blocking(move || {
                let mut recorder = recorder.lock().unwrap_or_else(PoisonError::into_inner);
                recorder
                    .on_agent_event(&event)
                    .map(|_| ())
                    .map_err(|error| error.to_string())
            })
            .await;
            match saved {
                Ok(Ok(())) => {}
                Ok(Err(reason)) => failures.push(reason),
                Err(join_error) => failures.push(join_error.to_string()),
            }
        }
        failures
    }
}

/// Whether the recorder has anything to write for `event` now. A checkpoint being written at this moment holds
/// the lock: then the update is throttled anyway, and the check does not wait for the write.
fn writes_now(recorder: &Mutex<ConversationRecorder>, event: &AgentEvent) -> bool {
    match recorder.try_lock() {
        Ok(recorder) => recorder.writes_for(event),
        Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner().writes_for(event),
        Err(TryLockError::WouldBlock) => matches!(event, AgentEvent::MessageEnd { .. }),
    }
}

/// The listener: forward the event, persist what it completes, and send a state notice when the agent's
/// runtime state changed (the reducer ran before listeners, so the state already reflects the event).
fn subscribe_forwarder(
    agent: &Agent,
    forward_tx: mpsc::Sender<ForwardItem>,
    last_state: Arc<Mutex<Option<HostNotice>>>,
    persistence: Persistence,
    queue: Arc<SessionQueue>,
) {
    let weak_agent = agent.downgrade();
    let _subscription = agent.subscribe(move |event: Arc<AgentEvent>, _cancel| {
        let forward_tx = forward_tx.clone();
        let last_state = Arc::clone(&last_state);
        let persistence = persistence.clone();
        let queue = Arc::clone(&queue);
        let agent = weak_agent.upgrade();
        async move {
            let _ = forward_tx.send(ForwardItem::Event(Arc::clone(&event))).await;
            if let AgentEvent::MessageStart { message } = event.as_ref() {
                queue.message_started(message).await;
            }
            for reason in persistence.save(&event).await {
                tracing::warn!(target: "desktop_host::session", %reason, "saving the conversation failed");
                let notice = HostNotice::Error { source: NoticeSource::Persistence, message: reason };
                let _ = forward_tx.send(ForwardItem::Notice(notice)).await;
            }
            if let Some(agent) = agent {
                let state = state_notice(&agent);
                if replace_if_changed(&last_state, &state) {
                    let _ = forward_tx.send(ForwardItem::Notice(state)).await;
                }
            }
            Ok::<(), HookError>(())
        }
    });
}

/// What the window is told of `model`.
fn model_summary(model: &pi_ai::Model) -> ModelSummary {
    let cost = &model.cost;
    ModelSummary {
        provider: model.provider.clone(),
        id: model.id.clone(),
        api: model.api.to_string(),
        context_window: model.context_window,
        image_input: takes_images(model),
        priced: cost.input > 0.0 || cost.output > 0.0,
    }
}

/// True when `model` takes image input (an MCP tool's image then goes to it).
fn takes_images(model: &pi_ai::Model) -> bool {
    model.input.contains(&pi_ai::InputModality::Image)
}
