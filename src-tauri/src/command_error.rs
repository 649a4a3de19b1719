//! The one error every command rejects with: `{ kind, code, detail }` (ipc-contract.md). The UI branches on the
//! kind and words the code in its language; the detail is what the failing part said. Never holds a secret.

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

/// What failed, as a code the UI words in its own language (ui/src/i18n/error-text.ts); each code implies its
/// kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ErrorCode {
    /// A run is active: steer, follow up or wait.
    Busy,
    /// There is nothing to continue from.
    NothingToContinue,
    /// The agent failed unexpectedly.
    AgentFailed,
    /// The model layer could not be set up from the settings.
    ModelSetup,
    /// The settings name no usable provider, or cannot be read.
    SettingsUnusable,
    /// The settings or the key file cannot be written.
    SettingsNotSaved,
    /// A value the user entered is not valid.
    InvalidValue,
    /// The system keychain failed.
    KeychainFailed,
    /// The system names no home or config folder.
    NoConfigFolder,
    /// The conversation was deleted.
    ConversationGone,
    /// The input to a stored conversation is not valid.
    InvalidInput,
    /// The disk is full.
    DiskFull,
    /// The app's data folder is not writable.
    DataFolderReadOnly,
    /// Another program holds the conversation database.
    DatabaseBusy,
    /// The conversation database is damaged.
    DatabaseDamaged,
    /// The conversation database was written by a newer version.
    DatabaseTooNew,
    /// Reading or writing the conversations failed.
    StorageFailed,
    /// The export could not be written.
    ExportFailed,
    /// A folder (the log folder, an export's) could not be shown in the file manager.
    FolderNotOpened,
    /// Work behind a command stopped unexpectedly.
    WorkStopped,
    /// The run's log is no longer kept.
    RunLogGone,
    /// No MCP server has that name.
    McpUnknownServer,
    /// The MCP server is disabled.
    McpServerDisabled,
    /// The MCP server's entry is not valid.
    McpEntryInvalid,
    /// That MCP server name is taken.
    McpNameTaken,
    /// `mcp.json` cannot be read or written.
    McpFileFailed,
    /// A keychain value of an MCP server cannot be kept.
    McpKeychainFailed,
    /// The other app's config cannot be imported.
    McpImportFailed,
    /// A grant could not be removed from `mcp.json`.
    McpGrantNotKept,
    /// No model was chosen.
    ModelRequired,
    /// The prompt (its images) is not valid.
    InvalidPrompt,
    /// The tool call is no longer waiting for an answer.
    ApprovalNotPending,
    /// The message is empty.
    EmptyMessage,
    /// The message is no longer queued.
    NoLongerQueued,
    /// The queued message is already on its way to the model.
    AlreadyDelivered,
    /// A web image was not shown: not a web address, too large, or not a picture.
    ImageRefused,
    /// A web image could not be fetched.
    ImageUnreachable,
    /// Regenerate, edit, a version switch or a deletion was asked for while a run is active.
    RunActive,
    /// Continue was asked for an answer that did not stop at the length limit.
    NotTruncated,
    /// The conversation is not saved, so it has no versions.
    NotSaved,
    /// The message is not on the shown branch (or has no version in that direction).
    NotOnBranch,
    /// An attached file is larger than the app reads.
    AttachmentTooLarge,
    /// An attached file is not a PDF, text, Markdown or code file.
    AttachmentUnsupported,
    /// An attached PDF cannot be parsed (damaged or encrypted).
    AttachmentUnreadable,
    /// An attached PDF has no text layer (a scan).
    AttachmentNoText,
}

impl ErrorCode {
    /// The kind of failure the code belongs to.
    pub fn kind(self) -> ErrorKind {
        use ErrorCode::*;
        match self {
            Busy | RunActive => ErrorKind::Busy,
            SettingsUnusable => ErrorKind::Settings,
            ModelSetup => ErrorKind::Provider,
            KeychainFailed | McpKeychainFailed => ErrorKind::Keychain,
            SettingsNotSaved | DiskFull | DataFolderReadOnly | DatabaseBusy | DatabaseDamaged
            | DatabaseTooNew | StorageFailed | ExportFailed | McpFileFailed | McpGrantNotKept => {
                ErrorKind::Storage
            }
            NothingToContinue
            | InvalidValue
            | ConversationGone
            | InvalidInput
            | RunLogGone
            | McpUnknownServer
            | McpServerDisabled
            | McpEntryInvalid
            | McpNameTaken
            | McpImportFailed
            | ModelRequired
            | InvalidPrompt
            | ApprovalNotPending
            | EmptyMessage
            | NoLongerQueued
            | AlreadyDelivered
            | ImageRefused
            | NotTruncated
            | NotSaved
            | NotOnBranch
            | AttachmentTooLarge
            | AttachmentUnsupported
            | AttachmentUnreadable
            | AttachmentNoText => ErrorKind::Invalid,
            ImageUnreachable => ErrorKind::Provider,
            AgentFailed | NoConfigFolder | WorkStopped | FolderNotOpened => ErrorKind::Internal,
        }
    }
}

/// A command's failure as the UI receives it: the UI words `code`; `detail` is what the failing part said (in
/// English, for example a path or the system's error), shown beside it. Never holds a secret.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error, ts_rs::TS)]
#[error("{code:?}: {}", detail.as_deref().unwrap_or_default())]
#[ts(export)]
pub struct CommandError {
    pub kind: ErrorKind,
    pub code: ErrorCode,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub detail: Option<String>,
}

impl CommandError {
    /// A failure with what the failing part said.
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> CommandError {
        let detail = detail.into();
        CommandError {
            kind: code.kind(),
            code,
            detail: (!detail.is_empty()).then_some(detail),
        }
    }

    /// A failure the code says all of.
    pub fn bare(code: ErrorCode) -> CommandError {
        CommandError::new(code, String::new())
    }

    /// A command's blocking work that stopped before answering (it panicked or was cancelled).
    pub fn work_stopped(error: impl std::fmt::Display) -> CommandError {
        CommandError::new(ErrorCode::WorkStopped, error.to_string())
    }
}

impl From<SessionError> for CommandError {
    fn from(error: SessionError) -> CommandError {
        let code = match &error {
            SessionError::Store(store_error) => return store_command_error(store_error),
            SessionError::RunActive => ErrorCode::RunActive,
            SessionError::NotTruncated => ErrorCode::NotTruncated,
            SessionError::NotRecorded => ErrorCode::NotSaved,
            SessionError::Busy(_) => ErrorCode::Busy,
            SessionError::NothingToContinue(_) => ErrorCode::NothingToContinue,
            SessionError::Agent(_) => ErrorCode::AgentFailed,
            SessionError::Setup(_) => ErrorCode::ModelSetup,
        };
        CommandError::new(code, error.to_string())
    }
}

impl From<SettingsServiceError> for CommandError {
    fn from(error: SettingsServiceError) -> CommandError {
        let code = match error.kind {
            SettingsFailure::Settings => ErrorCode::SettingsUnusable,
            SettingsFailure::Storage => ErrorCode::SettingsNotSaved,
            SettingsFailure::Invalid => ErrorCode::InvalidValue,
            SettingsFailure::Keychain => ErrorCode::KeychainFailed,
            SettingsFailure::Environment => ErrorCode::NoConfigFolder,
        };
        CommandError::new(code, error.message)
    }
}

impl From<&SettingsError> for CommandError {
    fn from(error: &SettingsError) -> CommandError {
        CommandError::new(ErrorCode::SettingsUnusable, error.to_string())
    }
}

/// The service's errors as the UI receives them; messages say what to do next.
pub(crate) fn to_command_error(error: ConversationsError) -> CommandError {
    match error {
        ConversationsError::Store(store_error) => store_command_error(&store_error),
        ConversationsError::Session(session_error) => CommandError::from(session_error),
        ConversationsError::SessionOptions(source) => match source.downcast::<CommandError>() {
            Ok(command_error) => *command_error,
            Err(other) => CommandError::new(ErrorCode::SettingsUnusable, other.to_string()),
        },
        ConversationsError::WriteExport { .. } => {
            CommandError::new(ErrorCode::ExportFailed, error.to_string())
        }
    }
}

fn store_command_error(error: &StoreError) -> CommandError {
    if matches!(error, StoreError::NotOnBranch { .. }) {
        return CommandError::new(ErrorCode::NotOnBranch, error.to_string());
    }
    let code = match error.kind() {
        StoreErrorKind::NotFound => ErrorCode::ConversationGone,
        StoreErrorKind::InvalidInput => ErrorCode::InvalidInput,
        StoreErrorKind::DiskFull => ErrorCode::DiskFull,
        StoreErrorKind::ReadOnly => ErrorCode::DataFolderReadOnly,
        StoreErrorKind::Busy => ErrorCode::DatabaseBusy,
        StoreErrorKind::Corrupt => ErrorCode::DatabaseDamaged,
        StoreErrorKind::SchemaTooNew => ErrorCode::DatabaseTooNew,
        StoreErrorKind::Io => ErrorCode::StorageFailed,
    };
    CommandError::new(code, error.to_string())
}
