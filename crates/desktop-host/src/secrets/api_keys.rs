//! The key store the app uses: which backend holds the keys, and the narrow API over it.

use std::fmt;
use std::path::{Path, PathBuf};

use super::backend::{KeyStorage, SecretBackend};
use super::error::{KeychainUnavailable, SecretsError};
use super::file_fallback::FileBackend;
use super::keychain::KeychainBackend;
use super::provider_id::check_provider_id;
use crate::settings::{ApiKey, ApiKeySource};

/// The keychain service name the app's items are stored under.
pub const KEYCHAIN_SERVICE: &str = "pi-desktop";

/// The fallback file's name inside the app's config folder.
pub const FALLBACK_FILE_NAME: &str = "api-keys.json";

/// What opening the key store found.
#[derive(Debug)]
pub enum KeyStoreSetup {
    /// Keys can be stored: in the keychain, or in the fallback file the user accepted earlier.
    Ready(ApiKeys),
    /// No keychain service answered and the user has not accepted the fallback file yet: show the reason and ask.
    NeedsFallbackConsent(FallbackOffer),
}

/// The offer of a private key file when no keychain is reachable.
#[derive(Debug)]
pub struct FallbackOffer {
    /// Why the keychain cannot be used.
    pub keychain_unavailable: KeychainUnavailable,
    /// The file that would hold the keys (owner-only permissions).
    pub file: PathBuf,
}

impl FallbackOffer {
    /// The user agreed: creates the file and returns a store that keeps keys in it.
    pub fn accept(self) -> Result<ApiKeys, SecretsError> {
        Ok(ApiKeys::new(Box::new(FileBackend::create_or_open(
            &self.file,
        )?)))
    }
}

/// Probes the OS keychain (service [`KEYCHAIN_SERVICE`]) and chooses where keys live; `config_dir` is the app's
/// config folder, where the fallback file would go.
pub fn open_key_store(config_dir: &Path) -> KeyStoreSetup {
    choose_key_store(KeychainBackend::connect(KEYCHAIN_SERVICE), config_dir)
}

/// The choice behind [`open_key_store`], given the keychain probe's outcome: the keychain when it answered;
/// otherwise the fallback file when it already exists (the user accepted it earlier); otherwise an offer.
pub fn choose_key_store(
    keychain: Result<KeychainBackend, KeychainUnavailable>,
    config_dir: &Path,
) -> KeyStoreSetup {
    let file = config_dir.join(FALLBACK_FILE_NAME);
    match keychain {
        Ok(backend) => KeyStoreSetup::Ready(ApiKeys::new(Box::new(backend))),
        Err(keychain_unavailable) => {
            if file.exists() {
                match FileBackend::create_or_open(&file) {
                    Ok(backend) => return KeyStoreSetup::Ready(ApiKeys::new(Box::new(backend))),
                    Err(error) => {
                        tracing::warn!(path = %file.display(), %error, "the accepted key file cannot be used");
                    }
                }
            }
            KeyStoreSetup::NeedsFallbackConsent(FallbackOffer {
                keychain_unavailable,
                file,
            })
        }
    }
}

/// API keys by pi provider id. Keys go in with [`ApiKeys::set_key`]; the UI learns only [`ApiKeys::has_key`];
/// the provider call gets the key through the [`ApiKeySource`] implementation, the only way out.
pub struct ApiKeys {
    backend: Box<dyn SecretBackend>,
}

impl fmt::Debug for ApiKeys {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("ApiKeys")
            .field("storage", &self.backend.storage())
            .finish()
    }
}

impl ApiKeys {
    /// A store over any backend (the app uses [`open_key_store`]; tests may pass their own).
    pub fn new(backend: Box<dyn SecretBackend>) -> Self {
        Self { backend }
    }

    /// Where the keys are kept.
    pub fn storage(&self) -> KeyStorage {
        self.backend.storage()
    }

    /// Stores the key for `provider`, replacing any earlier one. A blank key is refused.
    pub fn set_key(&self, provider: &str, key: &ApiKey) -> Result<(), SecretsError> {
        check_provider_id(provider)?;
        if key.expose().is_empty() {
            return Err(SecretsError::EmptyKey);
        }
        self.backend.write(provider, key)?;
        tracing::info!(provider, storage = ?self.backend.storage(), "API key stored");
        Ok(())
    }

    /// Deletes the key for `provider`; `Ok(false)` when none was set.
    pub fn delete_key(&self, provider: &str) -> Result<bool, SecretsError> {
        check_provider_id(provider)?;
        let was_set = self.backend.remove(provider)?;
        tracing::info!(provider, was_set, "API key deleted");
        Ok(was_set)
    }

    /// Whether a key is stored for `provider`.
    pub fn has_key(&self, provider: &str) -> Result<bool, SecretsError> {
        check_provider_id(provider)?;
        Ok(self.backend.read(provider)?.is_some())
    }
}

impl ApiKeySource for ApiKeys {
    fn api_key(&self, provider: &str) -> Result<Option<ApiKey>, String> {
        check_provider_id(provider)
            .and_then(|()| self.backend.read(provider))
            .map_err(|error| error.to_string())
    }
}
