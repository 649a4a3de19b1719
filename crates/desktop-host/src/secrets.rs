//! API keys in the OS keychain (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows), with
//! an explicit, user-confirmed file fallback where no keychain service is reachable (headless Linux, WSL).
//!
//! [`open_key_store`] probes the keychain and answers [`KeyStoreSetup::Ready`] with an [`ApiKeys`] store, or
//! [`KeyStoreSetup::NeedsFallbackConsent`] with the reason and the file that would hold the keys; the UI asks the
//! user and calls [`FallbackOffer::accept`] only on a yes. Once accepted, the file's existence is the consent, so
//! later starts use it without asking again (while the keychain stays unreachable).
//!
//! Contract: a key goes in through [`ApiKeys::set_key`] and comes out only through
//! [`ApiKeySource::api_key`](crate::settings::ApiKeySource::api_key), the
//! look-up settings resolution does for the provider call. Everything else (the UI, logs, errors, `Debug`)
//! sees at most whether a key is set. Keys never go to the settings file, the database or the log.

mod api_keys;
mod backend;
mod error;
mod file_fallback;
mod keychain;
mod provider_id;

pub use api_keys::{
    ApiKeys, FALLBACK_FILE_NAME, FallbackOffer, KEYCHAIN_SERVICE, KeyStoreSetup, choose_key_store,
    open_key_store,
};
pub use backend::{KeyStorage, SecretBackend};
pub use error::{KeychainUnavailable, SecretsError};
pub use file_fallback::FileBackend;
pub use keychain::KeychainBackend;
