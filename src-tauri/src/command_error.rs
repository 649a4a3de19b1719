//! The one error every command rejects with: `{ kind, message }` (ipc-contract.md), so the UI can branch on the
//! kind and show the message as it is. Messages say what happened and what to do; they never hold a secret.

use desktop_host::session::SessionError;
use desktop_host::settings::SettingsError;
use serde::Serialize;

/// What kind of failure; the UI branches on this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// A run is active; pi's message says to steer, follow up or wait.
    Busy,
    /// No usable provider settings.
    Settings,
    /// The model layer could not be set up.
    Provider,
    /// Conversations on disk failed.
    Storage,
    /// The keychain failed.
    Keychain,
    /// The request itself is wrong (for example nothing to continue from).
    Invalid,
    /// A bug or an unexpected state of the app.
    Internal,
}

/// A command's failure as the UI receives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    pub kind: ErrorKind,
    pub message: String,
}

impl CommandError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> CommandError {
        CommandError {
            kind,
            message: message.into(),
        }
    }
}

impl From<SessionError> for CommandError {
    fn from(error: SessionError) -> CommandError {
        let kind = match &error {
            SessionError::Busy(_) => ErrorKind::Busy,
            SessionError::NothingToContinue(_) => ErrorKind::Invalid,
            SessionError::Agent(_) => ErrorKind::Internal,
            SessionError::Setup(_) => ErrorKind::Provider,
        };
        CommandError::new(kind, error.to_string())
    }
}

impl From<&SettingsError> for CommandError {
    fn from(error: &SettingsError) -> CommandError {
        CommandError::new(ErrorKind::Settings, error.to_string())
    }
}
