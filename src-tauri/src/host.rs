//! The app's managed service: the current conversation (a desktop-host session with its Channel bridge) and how
//! to start a new one.
//!
//! Sessions are made by a [`SessionFactory`]: the real app resolves the provider settings (settings file + `PI_*`
//! variables) each time, so a new conversation picks up changed settings; tests pass scripted options. A session
//! is started on first use, inside the async runtime (its forwarder is a tokio task).
//!
//! Locking: a std mutex around the current conversation, held only to clone the handle out or swap it, never
//! across an await. Each conversation has a run gate (an async mutex held from attaching a run's Channel until
//! its `idle` went out), so a second `prompt` cannot take over the stream of the run in progress.

use std::sync::{Arc, Mutex, PoisonError};

use desktop_host::session::{DesktopSession, SessionError, SessionOptions, SessionState};
use desktop_host::wire::Envelope;
use pi_agent::AgentError;
use serde::Serialize;
use tauri::ipc::Channel;

use crate::channel_bridge::ChannelBridge;
use crate::command_error::CommandError;

/// Makes the options of a new session, or says why none can be made (for example no provider configured).
pub type SessionFactory = Box<dyn Fn() -> Result<SessionOptions, CommandError> + Send + Sync>;

/// What `get_state` returns: the session's state plus the conversation's id.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppState {
    #[serde(flatten)]
    pub session: SessionState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
}

/// Which kind of run a command starts; picks pi's refusal message while another run is active.
#[derive(Clone, Copy, Debug)]
pub(crate) enum RunKind {
    Prompt,
    Continue,
}

/// The managed state behind every command.
pub struct Host {
    factory: SessionFactory,
    current: Mutex<Option<Arc<Conversation>>>,
}

pub(crate) struct Conversation {
    session: DesktopSession,
    bridge: ChannelBridge,
    run_gate: tokio::sync::Mutex<()>,
}

impl Host {
    pub fn new(factory: SessionFactory) -> Host {
        Host {
            factory,
            current: Mutex::new(None),
        }
    }

    /// The current conversation, started now if there is none yet.
    pub(crate) fn conversation(&self) -> Result<Arc<Conversation>, CommandError> {
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(conversation) = current.as_ref() {
            return Ok(Arc::clone(conversation));
        }
        let conversation = Arc::new(Conversation::start((self.factory)()?)?);
        *current = Some(Arc::clone(&conversation));
        Ok(conversation)
    }

    /// Replaces the current conversation with an empty one; refused while a run is active.
    pub(crate) fn new_conversation(&self) -> Result<Arc<Conversation>, CommandError> {
        let previous = self.conversation()?;
        let _gate = previous
            .run_gate
            .try_lock()
            .map_err(|_| busy(RunKind::Prompt))?;
        if previous.session.get_state().is_streaming {
            return Err(busy(RunKind::Prompt));
        }
        let conversation = Arc::new(Conversation::start((self.factory)()?)?);
        *self.current.lock().unwrap_or_else(PoisonError::into_inner) =
            Some(Arc::clone(&conversation));
        Ok(conversation)
    }
}

impl Conversation {
    fn start(options: SessionOptions) -> Result<Conversation, CommandError> {
        let (session, envelopes) = DesktopSession::start(options)?;
        Ok(Conversation {
            session,
            bridge: ChannelBridge::spawn(envelopes),
            run_gate: tokio::sync::Mutex::new(()),
        })
    }

    pub(crate) fn session(&self) -> &DesktopSession {
        &self.session
    }

    pub(crate) fn state(&self) -> AppState {
        AppState {
            session: self.session.get_state(),
            conversation_id: None,
        }
    }

    /// Runs `prompt` or `continue_run` with its events on `channel`; returns once the run settled and the `idle`
    /// notice went out on the channel. Refused with pi's message while another run is active.
    pub(crate) async fn run(
        &self,
        kind: RunKind,
        channel: Channel<Envelope>,
        text: Option<String>,
    ) -> Result<(), CommandError> {
        let _gate = self.run_gate.try_lock().map_err(|_| busy(kind))?;
        let idle_before = self.bridge.idle_count();
        self.bridge.attach(channel);
        let result = match (kind, text) {
            (RunKind::Prompt, Some(text)) => self.session.prompt(text).await,
            (RunKind::Prompt, None) => self.session.prompt(String::new()).await,
            (RunKind::Continue, _) => self.session.continue_run().await,
        };
        match result {
            // Refusals before the run started: nothing was sent, no `idle` will come.
            Err(
                error @ (SessionError::Busy(_)
                | SessionError::Agent(
                    AgentError::NoMessagesToContinue | AgentError::CannotContinueFrom(_),
                )),
            ) => Err(error.into()),
            // The run settled (`idle` was handed to the bridge); resolve once it reached the channel.
            result => {
                self.bridge.idle_forwarded_after(idle_before).await;
                result.map_err(CommandError::from)
            }
        }
    }
}

/// pi's refusal while a run is active, word for word.
fn busy(kind: RunKind) -> CommandError {
    let agent_error = match kind {
        RunKind::Prompt => AgentError::AlreadyProcessingPrompt,
        RunKind::Continue => AgentError::AlreadyProcessingContinue,
    };
    SessionError::Busy(agent_error).into()
}
