//! What every key backend is ([`SecretBackend`]) and where it keeps keys ([`KeyStorage`]): the floor both the
//! keychain and the fallback file stand on.

use std::fmt;
use std::path::PathBuf;

use super::error::SecretsError;
use crate::settings::ApiKey;

/// Where keys are kept: a keychain or the fallback file.
///
/// Contract for implementations: `read` returns `Ok(None)` when no key is stored; `write` sets or replaces;
/// `remove` says whether a key was there. Errors never contain a key.
pub trait SecretBackend: Send + Sync + fmt::Debug {
    /// Where this backend keeps keys (safe to show).
    fn storage(&self) -> KeyStorage;
    /// The key stored for `provider`, if any.
    fn read(&self, provider: &str) -> Result<Option<ApiKey>, SecretsError>;
    /// Stores `key` for `provider`, replacing any earlier one.
    fn write(&self, provider: &str, key: &ApiKey) -> Result<(), SecretsError>;
    /// Deletes the key for `provider`; `Ok(false)` when there was none.
    fn remove(&self, provider: &str) -> Result<bool, SecretsError>;
}

/// Where the keys are, for the settings screen (a warning is due for [`KeyStorage::File`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum KeyStorage {
    /// The OS keychain, items under `service`.
    Keychain { service: String },
    /// The fallback file the user agreed to.
    File { path: PathBuf },
}
