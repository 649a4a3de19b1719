//! Errors of the key store. No variant can hold a key: keychain failures are turned into text here, and the one
//! keychain error that carries secret bytes (a stored value that is not UTF-8) keeps only the provider id.

use std::io;
use std::path::PathBuf;

/// Why the OS keychain cannot be used (no D-Bus session, no Secret Service, …); safe to show to the user.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the OS keychain is not available: {reason}")]
pub struct KeychainUnavailable {
    /// What the platform said, for the notice.
    pub reason: String,
}

/// A failure to store, read or delete a key.
#[derive(Debug, thiserror::Error)]
pub enum SecretsError {
    /// The keychain was reachable before but not now.
    #[error(transparent)]
    KeychainUnavailable(#[from] KeychainUnavailable),
    /// The keychain answered with an error.
    #[error("the OS keychain failed for provider {provider}: {reason}")]
    Keychain { provider: String, reason: String },
    /// The stored value is not text.
    #[error("the key stored for provider {provider} is not valid text")]
    BadEncoding { provider: String },
    /// The fallback file could not be read.
    #[error("cannot read the key file {path}: {source}")]
    ReadFile { path: PathBuf, source: io::Error },
    /// The fallback file could not be written.
    #[error("cannot write the key file {path}: {source}")]
    WriteFile { path: PathBuf, source: io::Error },
    /// The fallback file is not what this app writes. (serde_json's message names a line and column, never text
    /// from the file.)
    #[error("the key file {path} is not valid: {source}")]
    ParseFile {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// A provider id that cannot name a key.
    #[error("{0:?} is not a valid provider id (use letters, digits, '-', '_' or '.')")]
    InvalidProvider(String),
    /// An empty (or blank) key.
    #[error("an API key cannot be empty")]
    EmptyKey,
}
