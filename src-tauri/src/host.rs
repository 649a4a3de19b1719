//! What the app keeps beside each open conversation's session (its Channel bridge and run gate), and how the
//! conversations service is opened.
//!
//! desktop-host's [`Conversations`] service holds the sessions (one per open conversation, each saving to the
//! store); this module's [`Conversation`] is the attachment the service keeps beside each one. Sessions are made
//! by a [`SessionFactory`]: the real app resolves the provider settings (settings file + `PI_*` variables) each
//! time, so a new conversation picks up changed settings; tests pass scripted options.
//!
//! Each conversation has a run gate (an async mutex held from attaching a run's Channel until its `idle` went
//! out), so a second `prompt` cannot take over the stream of the run in progress.

use std::path::PathBuf;
use std::sync::Arc;

use desktop_host::conversations::{
    Conversations, ConversationsError, ConversationsOptions, SessionOptionsFactory,
    SessionStartedHook,
};
use desktop_host::session::{
    DesktopSession, SessionError, SessionOptions, SessionPrompt, SessionState,
};
use desktop_host::wire::Envelope;
use pi_agent::AgentError;
use serde::Serialize;
use tauri::ipc::Channel;

use crate::channel_bridge::ChannelBridge;
use crate::command_error::CommandError;
use crate::commands::conversations::AppConversations;

/// Makes the options of a new session, or says why none can be made (for example no provider configured).
pub type SessionFactory = Arc<dyn Fn() -> Result<SessionOptions, CommandError> + Send + Sync>;

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

/// The app's attachment to one session: the bridge carrying its envelopes to the run's Channel, and its run gate.
pub(crate) struct Conversation {
    bridge: ChannelBridge,
    run_gate: tokio::sync::Mutex<()>,
}

/// Opens the conversations service over `data_dir` (its database) with exports going to `export_dir`.
/// Only fails when not even an in-memory store can be made.
pub(crate) fn open_conversations(
    data_dir: PathBuf,
    export_dir: PathBuf,
    factory: SessionFactory,
) -> Result<AppConversations, ConversationsError> {
    let session_options: SessionOptionsFactory = Arc::new(move || {
        factory().map_err(|error| Box::new(error) as Box<dyn std::error::Error + Send + Sync>)
    });
    let hook: SessionStartedHook<Conversation> = Arc::new(|started| Conversation {
        bridge: ChannelBridge::spawn(started.envelopes),
        run_gate: tokio::sync::Mutex::new(()),
    });
    Conversations::open(ConversationsOptions::new(
        data_dir,
        export_dir,
        session_options,
        hook,
    ))
}

impl Conversation {
    /// Runs `prompt` or `continue_run` on `session` (the one this attachment belongs to) with its events on
    /// `channel`; returns once the run settled and the `idle` notice went out on the channel. Refused with pi's
    /// message while another run is active.
    pub(crate) async fn run(
        &self,
        session: &DesktopSession,
        kind: RunKind,
        channel: Channel<Envelope>,
        prompt: Option<SessionPrompt>,
    ) -> Result<(), CommandError> {
        let _gate = self.run_gate.try_lock().map_err(|_| busy(kind))?;
        let idle_before = self.bridge.idle_count();
        self.bridge.attach(channel);
        let result = match (kind, prompt) {
            (RunKind::Prompt, Some(prompt)) => session.prompt(prompt).await,
            (RunKind::Prompt, None) => session.prompt(String::new()).await,
            (RunKind::Continue, _) => session.continue_run().await,
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
