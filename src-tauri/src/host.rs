//! How the conversations service is opened, and what the conversation commands answer.
//!
//! desktop-host's [`Conversations`] service holds the sessions (one per open conversation, each saving to the
//! store) and streams their envelopes to the windows that subscribed. Sessions are made by a [`SessionFactory`]:
//! the real app asks desktop-host's [`SettingsService`] each time (the settings file, the stored keys, the `PI_*`
//! variables), so a new conversation picks up changed settings; tests pass scripted options.

use std::path::PathBuf;
use std::sync::Arc;

use desktop_host::conversations::{
    Conversations, ConversationsError, ConversationsOptions, SessionOptionsFactory,
};
use desktop_host::mcp::McpServers;
use desktop_host::session::{DesktopSession, SessionOptions, SessionState};
use desktop_host::settings::SettingsService;
use desktop_host::store::ConversationId;
use serde::Serialize;

use crate::command_error::CommandError;

/// Makes the options of a new session, or says why none can be made (for example no provider configured).
pub type SessionFactory = Arc<dyn Fn() -> Result<SessionOptions, CommandError> + Send + Sync>;

/// What `get_state` returns: the session's state plus the conversation's id.
#[derive(Clone, Debug, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AppState {
    #[serde(flatten)]
    pub session: SessionState,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub conversation_id: Option<String>,
}

impl AppState {
    /// The state of conversation `id`, whose session is `session`; with `tail`, a transcript longer than that many
    /// messages comes from its end ([`SessionState::from_end`]).
    pub(crate) fn of(
        session: &DesktopSession,
        id: &ConversationId,
        tail: Option<usize>,
    ) -> AppState {
        AppState {
            session: match tail {
                Some(keep) => session.get_state_from_end(keep),
                None => session.get_state(),
            },
            conversation_id: Some(id.to_string()),
        }
    }
}

/// Sessions as the real app makes them: from the settings resolved anew each time with the process environment,
/// with the tools of the app's MCP servers.
pub(crate) fn sessions_from_settings(
    settings: SettingsService,
    mcp: Arc<McpServers>,
) -> SessionFactory {
    Arc::new(move || {
        let env = std::env::vars().collect();
        let mut options = settings.session_options(&env, None)?;
        options.mcp = Some(Arc::clone(&mcp));
        Ok(options)
    })
}

/// Opens the conversations service over `data_dir` (its database) with exports going to `export_dir`.
/// Only fails when not even an in-memory store can be made.
pub(crate) fn open_conversations(
    data_dir: PathBuf,
    export_dir: PathBuf,
    factory: SessionFactory,
) -> Result<Conversations, ConversationsError> {
    let session_options: SessionOptionsFactory = Arc::new(move || {
        factory().map_err(|error| Box::new(error) as Box<dyn std::error::Error + Send + Sync>)
    });
    Conversations::open(ConversationsOptions::new(
        data_dir,
        export_dir,
        session_options,
    ))
}
