//! The store's typed errors and the classification the host turns into a UI notice.

use std::io;
use std::path::PathBuf;

use rusqlite::ErrorCode;

use super::conversation_id::ConversationId;

/// Everything that can go wrong in the conversation store.
///
/// Texts name the path, id or operation involved, never message content; they are safe to log and to show.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database file could not be opened or prepared.
    #[error("cannot open the conversation database {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// The folder for the database could not be created.
    #[error("cannot create the folder {path}: {source}")]
    CreateFolder { path: PathBuf, source: io::Error },
    /// The database was written by a newer version of the app; it is left untouched.
    #[error(
        "the conversation database {path} has schema version {found}, newer than the supported {supported}"
    )]
    SchemaTooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    /// The copy taken before a migration could not be written; nothing was migrated.
    #[error("cannot back up {path} before migrating it: {source}")]
    Backup {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// A migration step failed and was rolled back.
    #[error("migrating the conversation database to schema version {version} failed: {source}")]
    Migration {
        version: i64,
        source: rusqlite::Error,
    },
    /// A corrupt database file could not be renamed aside.
    #[error("cannot move the corrupt database {path} aside: {source}")]
    MoveAside { path: PathBuf, source: io::Error },
    /// A read or write failed.
    #[error("conversation database error while trying to {operation}: {source}")]
    Sqlite {
        operation: &'static str,
        source: rusqlite::Error,
    },
    /// No conversation has this id (or it was purged).
    #[error("conversation {0} not found")]
    NotFound(ConversationId),
    /// A stored message is not valid JSON.
    #[error("message {seq} of conversation {conversation_id} is not valid JSON: {source}")]
    CorruptMessage {
        conversation_id: ConversationId,
        seq: i64,
        source: serde_json::Error,
    },
    /// A stored message is JSON but not a valid pi message of its role (a user message without `content`, …).
    #[error(
        "message {seq} of conversation {conversation_id} is not a valid agent message: {source}"
    )]
    NotAnAgentMessage {
        conversation_id: ConversationId,
        seq: i64,
        source: serde_json::Error,
    },
    /// A message to store has no string `role`.
    #[error("cannot store a message without a string `role`")]
    MessageWithoutRole,
    /// A message could not be turned into JSON text.
    #[error("cannot serialise a message: {0}")]
    Serialise(serde_json::Error),
    /// A rename to an empty (or blank) title.
    #[error("a conversation title cannot be empty")]
    EmptyTitle,
    /// A stored run log could not be unpacked.
    #[error("the log of run {log_id} is damaged: {source}")]
    CorruptRunLog { log_id: i64, source: io::Error },
    /// A checkpoint or finish referred to a row that is not the open checkpoint of that conversation.
    #[error("message {seq} of conversation {conversation_id} is not an open checkpoint")]
    NotACheckpoint {
        conversation_id: ConversationId,
        seq: i64,
    },
    /// A version or branch operation named a message that is not where it has to be (not a live message of the
    /// conversation, not on its shown branch, not of the role the operation needs, or no version in that direction).
    #[error("message {seq} of conversation {conversation_id} cannot be used for this: {reason}")]
    NotOnBranch {
        conversation_id: ConversationId,
        seq: i64,
        reason: &'static str,
    },
}

/// What kind of failure a [`StoreError`] is, for the UI to choose its notice and next step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum StoreErrorKind {
    /// The disk (or the database's size limit) is full: free space, then the next save retries.
    DiskFull,
    /// The folder or file is read-only or not accessible.
    ReadOnly,
    /// The database file is damaged; it is moved aside at the next start.
    Corrupt,
    /// Another process holds the database.
    Busy,
    /// The database was made by a newer app version.
    SchemaTooNew,
    /// The conversation does not exist.
    NotFound,
    /// The caller passed something the store cannot take (empty title, message without role).
    InvalidInput,
    /// Any other input/output failure.
    Io,
}

impl StoreError {
    /// Classifies the error.
    pub fn kind(&self) -> StoreErrorKind {
        match self {
            Self::Open { source, .. }
            | Self::Backup { source, .. }
            | Self::Migration { source, .. }
            | Self::Sqlite { source, .. } => sqlite_kind(source),
            Self::CreateFolder { source, .. } | Self::MoveAside { source, .. } => io_kind(source),
            Self::SchemaTooNew { .. } => StoreErrorKind::SchemaTooNew,
            Self::NotFound(_) => StoreErrorKind::NotFound,
            Self::CorruptMessage { .. }
            | Self::NotAnAgentMessage { .. }
            | Self::CorruptRunLog { .. } => StoreErrorKind::Corrupt,
            Self::MessageWithoutRole
            | Self::Serialise(_)
            | Self::EmptyTitle
            | Self::NotACheckpoint { .. }
            | Self::NotOnBranch { .. } => StoreErrorKind::InvalidInput,
        }
    }

    pub(crate) fn sqlite(operation: &'static str) -> impl FnOnce(rusqlite::Error) -> Self {
        move |source| Self::Sqlite { operation, source }
    }
}

/// True when SQLite says the file is not a database or is damaged: the only errors that justify moving it aside.
pub(crate) fn is_corruption(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

fn sqlite_kind(error: &rusqlite::Error) -> StoreErrorKind {
    #[allow(
        clippy::wildcard_enum_match_arm,
        reason = "rusqlite's ErrorCode is foreign and non-exhaustive"
    )]
    match error.sqlite_error_code() {
        Some(ErrorCode::DiskFull) => StoreErrorKind::DiskFull,
        Some(ErrorCode::ReadOnly | ErrorCode::PermissionDenied | ErrorCode::CannotOpen) => {
            StoreErrorKind::ReadOnly
        }
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => StoreErrorKind::Corrupt,
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreErrorKind::Busy,
        _ => StoreErrorKind::Io,
    }
}

fn io_kind(error: &io::Error) -> StoreErrorKind {
    #[allow(
        clippy::wildcard_enum_match_arm,
        reason = "io::ErrorKind is foreign and non-exhaustive"
    )]
    match error.kind() {
        io::ErrorKind::StorageFull => StoreErrorKind::DiskFull,
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
            StoreErrorKind::ReadOnly
        }
        _ => StoreErrorKind::Io,
    }
}
