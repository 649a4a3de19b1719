//! [`DesktopSession`]: one conversation as the app runs it — an Agent built from the settings, the desktop
//! tools and a `stream_fn` over pi-ai's `Models`, plus a forwarder that turns every AgentEvent into numbered wire
//! envelopes on a bounded channel. src-tauri's commands are thin wrappers over its methods; `pi-chat` uses it too.
//!
//! Contracts:
//! - Create it inside a tokio runtime ([`DesktopSession::start`] spawns the forwarder).
//! - Envelopes come out in event order. The Agent's listener awaits the bounded channel, so a slow reader slows
//!   the run instead of growing memory; when the reader is gone, envelopes are dropped and the run goes on.
//! - [`DesktopSession::prompt`] and [`DesktopSession::continue_run`] return after the run settled, the final
//!   `state` notice and the `idle` notice were handed to the channel (so "Send" comes back on `idle`, the book's
//!   settling rule). A prompt while a run is active is refused with pi's message and nothing is queued.
//! - `abort`, `steer`, `follow_up` and `get_state` work from any task at any time.
//! - Persistence: an optional [`store::ConversationRecorder`](crate::store::ConversationRecorder) sees every event
//!   (it checkpoints the streaming assistant message at most once a second and saves each `message_end`; its
//!   SQLite work runs under `spawn_blocking`), and an optional hook sees every `message_end`. A failure of either
//!   becomes an `error` notice (source `persistence`), never a failed run; the recorder keeps failed saves queued
//!   and writes them, in order, with the next event.

use std::sync::{Arc, Mutex, PoisonError, TryLockError};
use std::time::Duration;

use futures_util::future::BoxFuture;
use pi_agent::{
    Agent, AgentError, AgentEvent, AgentInitialState, AgentMessage, AgentOptions, HookError,
    PromptInput, StreamFn,
};
use pi_ai::{ModelThinkingLevel, StopReason, UserBlock, UserContent, UserMessage};
use serde::Serialize;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

mod prompt_images;

/// The image block a [`SessionPrompt`] carries (pi-ai's), for callers without a pi-ai dependency.
pub use pi_ai::ImageContent;
pub use prompt_images::{
    MAX_IMAGE_BYTES, MAX_PROMPT_IMAGES, PromptImageError, SUPPORTED_IMAGE_TYPES, SessionPrompt,
    validate_prompt_images,
};

use crate::desktop_paths::DesktopPaths;
use crate::desktop_tools::{DesktopToolContext, desktop_agent_tools};
use crate::diagnostics::Diagnostics;
use crate::model_registry::{ModelSetupError, model_for, models_for, stream_fn_for};
use crate::settings::ResolvedSettings;
use crate::store::ConversationRecorder;
use crate::wire::{
    DeltaCoalescer, Envelope, ForwardItem, HostNotice, NoticeSource, spawn_forwarder,
};

/// Envelopes buffered between the forwarder and the reader by default.
pub const DEFAULT_ENVELOPE_CAPACITY: usize = 256;

/// Called with every completed message (to persist it); an `Err` text becomes a persistence notice.
pub type MessageEndHook =
    Arc<dyn Fn(AgentMessage) -> BoxFuture<'static, Result<(), String>> + Send + Sync>;

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
    /// Capacity of the envelope channel.
    pub envelope_capacity: usize,
    /// The coalescing window for deltas (zero disables coalescing).
    pub coalesce_window: Duration,
    /// Persistence of completed messages.
    pub on_message_end: Option<MessageEndHook>,
    /// Saves the conversation as it streams (checkpoints and completed messages).
    pub recorder: Option<Arc<Mutex<ConversationRecorder>>>,
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
            on_message_end: None,
            recorder: None,
        }
    }
}

/// Why a session call failed. `Display` is safe to show the user.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// A run is active (pi's message: use steer/follow-up or wait).
    #[error("{0}")]
    Busy(AgentError),
    /// The Agent refused the call (for example nothing to continue from).
    #[error("{0}")]
    Agent(AgentError),
    /// The model layer could not be set up.
    #[error(transparent)]
    Setup(#[from] ModelSetupError),
}

/// A snapshot for the UI (`get_state`), in pi's JSON names.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionState {
    /// A run is active (until it settles).
    pub is_streaming: bool,
    /// Tool calls running now, in start order.
    pub pending_tool_calls: Vec<String>,
    /// The error of the most recent failed or aborted turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// The transcript, in pi's JSON.
    pub messages: Vec<AgentMessage>,
    /// The model in use.
    pub model: ModelSummary,
    /// The thinking level.
    pub thinking_level: ModelThinkingLevel,
}

/// Which model a session talks to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelSummary {
    /// pi's provider id.
    pub provider: String,
    /// The model id.
    pub id: String,
    /// The wire API.
    pub api: String,
}

/// One conversation. Cheap to clone; clones share the Agent and the channel.
#[derive(Clone)]
pub struct DesktopSession {
    inner: Arc<SessionInner>,
}

struct SessionInner {
    agent: Agent,
    tool_context: Mutex<DesktopToolContext>,
    forward_tx: mpsc::Sender<ForwardItem>,
    last_state: Arc<Mutex<Option<HostNotice>>>,
    diagnostics: Diagnostics,
    forwarder: AbortOnDrop,
}

/// Aborts the forwarder when the last session handle goes.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl DesktopSession {
    /// Builds the Agent and starts the forwarder. Returns the session and the receiving end of its envelopes.
    pub fn start(
        options: SessionOptions,
    ) -> Result<(DesktopSession, mpsc::Receiver<Envelope>), SessionError> {
        let settings = &options.settings;
        let stream_fn = match options.stream_fn.clone() {
            Some(stream_fn) => stream_fn,
            None => stream_fn_for(Arc::new(models_for(settings)?)),
        };
        let tool_context = DesktopToolContext::new(options.paths.clone(), settings.language);
        let diagnostics = tool_context.diagnostics.clone();
        let mut agent_options = AgentOptions::new(stream_fn);
        agent_options.initial_state = AgentInitialState {
            system_prompt: Some(settings.system_prompt.clone()),
            model: Some(model_for(settings)),
            thinking_level: Some(settings.thinking_level),
            tools: desktop_agent_tools(&tool_context),
            messages: options.messages.clone(),
        };
        let agent = Agent::new(agent_options);

        let capacity = options.envelope_capacity.max(1);
        let (forward_tx, forward_rx) = mpsc::channel(capacity);
        let (envelope_tx, envelope_rx) = mpsc::channel(capacity);
        let forwarder = spawn_forwarder(
            forward_rx,
            envelope_tx,
            DeltaCoalescer::new(options.coalesce_window),
        );
        let last_state = Arc::new(Mutex::new(None));
        subscribe_forwarder(
            &agent,
            forward_tx.clone(),
            Arc::clone(&last_state),
            Persistence {
                on_message_end: options.on_message_end.clone(),
                recorder: options.recorder.clone(),
            },
        );
        let inner = SessionInner {
            agent,
            tool_context: Mutex::new(tool_context),
            forward_tx,
            last_state,
            diagnostics,
            forwarder: AbortOnDrop(forwarder),
        };
        Ok((
            DesktopSession {
                inner: Arc::new(inner),
            },
            envelope_rx,
        ))
    }

    /// Runs one prompt (text, or a [`SessionPrompt`] with images) to its end. Refused with
    /// [`SessionError::Busy`] while a run is active.
    pub async fn prompt(&self, prompt: impl Into<SessionPrompt>) -> Result<(), SessionError> {
        let (text, images) = prompt.into().into_parts();
        let run = self
            .inner
            .agent
            .prompt(PromptInput::with_images(text, images));
        match run.await {
            Err(error @ AgentError::AlreadyProcessingPrompt) => Err(SessionError::Busy(error)),
            result => {
                self.settle().await;
                result.map_err(SessionError::Agent)
            }
        }
    }

    /// Continues from the transcript (pi's `continue()`); refused while a run is active.
    ///
    /// This is the UI's Retry: an answer that ended in `error` or `aborted` is dropped from the Agent's
    /// transcript first (it stays in the store and on screen), so the model is asked again from the messages
    /// before it. pi's `continue()` would refuse an assistant tail, and providers skip such messages anyway.
    pub async fn continue_run(&self) -> Result<(), SessionError> {
        if self.inner.agent.is_streaming() {
            return Err(SessionError::Busy(AgentError::AlreadyProcessingContinue));
        }
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
        match self.inner.agent.continue_run().await {
            Err(error @ AgentError::AlreadyProcessingContinue) => Err(SessionError::Busy(error)),
            Err(error @ (AgentError::NoMessagesToContinue | AgentError::CannotContinueFrom(_))) => {
                Err(SessionError::Agent(error))
            }
            result => {
                self.settle().await;
                result.map_err(SessionError::Agent)
            }
        }
    }

    /// Switches to new settings (model, key, system prompt, thinking level, language of the tools' messages).
    /// Safe while a run is active: a run keeps the snapshot it started with, and the next run uses these.
    pub fn apply_settings(&self, settings: &ResolvedSettings) -> Result<(), SessionError> {
        let stream_fn = stream_fn_for(Arc::new(models_for(settings)?));
        let tools = {
            let mut tool_context = self
                .inner
                .tool_context
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            tool_context.language = settings.language;
            desktop_agent_tools(&tool_context)
        };
        let agent = &self.inner.agent;
        agent.configure(|config| config.stream_fn = stream_fn);
        agent.set_model(model_for(settings));
        agent.set_system_prompt(settings.system_prompt.clone());
        agent.set_thinking_level(settings.thinking_level);
        agent.set_tools(tools);
        Ok(())
    }

    /// Stops the active run (no-op when idle). The run ends as `aborted` and `prompt` still returns normally.
    pub fn abort(&self) {
        self.inner.agent.abort();
    }

    /// Queues a user message for the next request of the active run (or the next run).
    pub fn steer(&self, text: impl Into<String>) {
        self.inner.agent.steer(user_message(text.into()));
    }

    /// Queues a user message for when the run would otherwise end.
    pub fn follow_up(&self, text: impl Into<String>) {
        self.inner.agent.follow_up(user_message(text.into()));
    }

    /// The current state, for the UI.
    pub fn get_state(&self) -> SessionState {
        let state = self.inner.agent.state();
        SessionState {
            is_streaming: state.is_streaming,
            pending_tool_calls: state.pending_tool_calls,
            error_message: state.error_message,
            messages: state.messages,
            model: ModelSummary {
                provider: state.model.provider,
                id: state.model.id,
                api: state.model.api.to_string(),
            },
            thinking_level: state.thinking_level,
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

    /// The Agent, for callers that need more than this facade.
    pub fn agent(&self) -> &Agent {
        &self.inner.agent
    }

    /// The diagnostics ring the desktop tools write to.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.inner.diagnostics
    }

    /// After a run: the final state notice, `idle`, and a flush, all handed over before returning.
    async fn settle(&self) {
        let state = state_notice(&self.inner.agent);
        let changed = replace_if_changed(&self.inner.last_state, &state);
        let forward_tx = &self.inner.forward_tx;
        if changed {
            let _ = forward_tx.send(ForwardItem::Notice(state)).await;
        }
        let _ = forward_tx.send(ForwardItem::Notice(HostNotice::Idle)).await;
        let (ack_tx, ack_rx) = oneshot::channel();
        if forward_tx.send(ForwardItem::Flush(ack_tx)).await.is_ok() {
            // The forwarder may be gone (reader dropped); then there is nothing to wait for.
            let _ = ack_rx.await;
        }
        if self.inner.forwarder.0.is_finished() {
            tracing::debug!(
                "envelope reader is gone; the session keeps running without forwarding"
            );
        }
    }
}

fn user_message(text: String) -> AgentMessage {
    AgentMessage::User(UserMessage::new(UserContent::Blocks(vec![
        UserBlock::text(text),
    ])))
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
    on_message_end: Option<MessageEndHook>,
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
        if let (AgentEvent::MessageEnd { message }, Some(hook)) =
            (event.as_ref(), &self.on_message_end)
            && let Err(reason) = hook(message.clone()).await
        {
            failures.push(reason);
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
) {
    let weak_agent = agent.downgrade();
    let _subscription = agent.subscribe(move |event: Arc<AgentEvent>, _cancel| {
        let forward_tx = forward_tx.clone();
        let last_state = Arc::clone(&last_state);
        let persistence = persistence.clone();
        let agent = weak_agent.upgrade();
        async move {
            let _ = forward_tx.send(ForwardItem::Event(Arc::clone(&event))).await;
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
