//! The one error every command rejects with: `{ kind, message }` (ipc-contract.md), so the UI can branch on the
//! kind and show the message as it is. Messages say what happened and what to do; they never hold a secret.

use desktop_host::conversations::ConversationsError;
use desktop_host::session::SessionError;
use desktop_host::settings::{SettingsError, SettingsFailure, SettingsServiceError};
use desktop_host::store::{StoreError, StoreErrorKind};
use serde::Serialize;

/// What kind of failure; the UI branches on this.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error, ts_rs::TS)]
#[error("{message}")]
#[ts(export)]
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

impl From<SettingsServiceError> for CommandError {
    fn from(error: SettingsServiceError) -> CommandError {
        let kind = match error.kind {
            SettingsFailure::Settings => ErrorKind::Settings,
            SettingsFailure::Storage => ErrorKind::Storage,
            SettingsFailure::Invalid => ErrorKind::Invalid,
            SettingsFailure::Keychain => ErrorKind::Keychain,
            SettingsFailure::Environment => ErrorKind::Internal,
        };
        CommandError::new(kind, error.message)
    }
}

impl From<&SettingsError> for CommandError {
    fn from(error: &SettingsError) -> CommandError {
        CommandError::new(ErrorKind::Settings, error.to_string())
    }
}

/// The service's errors as the UI receives them; messages say what to do next.
pub(crate) fn to_command_error(error: ConversationsError) -> CommandError {
    match error {
        ConversationsError::Store(store_error) => store_command_error(&store_error),
        ConversationsError::Session(session_error) => CommandError::from(session_error),
        ConversationsError::SessionOptions(source) => match source.downcast::<CommandError>() {
            Ok(command_error) => *command_error,
            Err(other) => CommandError::new(ErrorKind::Settings, other.to_string()),
        },
        ConversationsError::WriteExport { .. } => CommandError::new(
            ErrorKind::Storage,
            format!(
                "{error}. Check that your Downloads folder exists, is writable and has free space."
            ),
        ),
    }
}

fn store_command_error(error: &StoreError) -> CommandError {
    match error.kind() {
        StoreErrorKind::NotFound => CommandError::new(
            ErrorKind::Invalid,
            "This conversation no longer exists (it was deleted). Pick another one from the list.",
        ),
        StoreErrorKind::InvalidInput => CommandError::new(
            ErrorKind::Invalid,
            format!("{error}. Change it and try again."),
        ),
        StoreErrorKind::DiskFull => CommandError::new(
            ErrorKind::Storage,
            format!("{error}. The disk is full: free some space and try again."),
        ),
        StoreErrorKind::ReadOnly => CommandError::new(
            ErrorKind::Storage,
            format!("{error}. The app's data folder is not writable: check its permissions."),
        ),
        StoreErrorKind::Busy => CommandError::new(
            ErrorKind::Storage,
            format!(
                "{error}. Another program holds the conversation database: close it and try again."
            ),
        ),
        StoreErrorKind::Corrupt => CommandError::new(
            ErrorKind::Storage,
            format!(
                "{error}. Restart Pi Desktop: a damaged database is set aside and a new one started."
            ),
        ),
        StoreErrorKind::SchemaTooNew => CommandError::new(
            ErrorKind::Storage,
            format!(
                "{error}. Update Pi Desktop to the newest version to open these conversations."
            ),
        ),
        StoreErrorKind::Io => CommandError::new(
            ErrorKind::Storage,
            format!("{error}. Try again; restart Pi Desktop if it keeps failing."),
        ),
    }
}
