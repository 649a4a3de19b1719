//! Keys in the OS keychain through the `keyring` crate (on Linux its `sync-secret-service` store, which talks to
//! the Secret Service over libdbus). Each key is one item: service [`super::KEYCHAIN_SERVICE`] (or the one given),
//! account = the provider id.

use std::fmt;

use keyring::Entry;

use super::backend::{KeyStorage, SecretBackend};
use super::error::{KeychainUnavailable, SecretsError};
use super::provider_id::check_provider_id;
use crate::settings::ApiKey;

/// The account the availability probe looks up; it is never written.
const PROBE_ACCOUNT: &str = "pi-desktop-keychain-probe";

/// The OS keychain, known to be reachable when it was connected.
pub struct KeychainBackend {
    service: String,
}

impl fmt::Debug for KeychainBackend {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("KeychainBackend")
            .field("service", &self.service)
            .finish()
    }
}

impl KeychainBackend {
    /// Checks that the keychain answers (a look-up of an account that does not exist must say "no entry") and
    /// returns a backend storing items under `service`.
    pub fn connect(service: &str) -> Result<Self, KeychainUnavailable> {
        let entry = Entry::new(service, PROBE_ACCOUNT).map_err(|error| KeychainUnavailable {
            reason: describe(&error),
        })?;
        match entry.get_password() {
            Ok(_)
            | Err(
                keyring::Error::NoEntry
                | keyring::Error::BadEncoding(_)
                | keyring::Error::Ambiguous(_),
            ) => Ok(Self {
                service: service.to_owned(),
            }),
            Err(error) => Err(KeychainUnavailable {
                reason: describe(&error),
            }),
        }
    }

    fn entry(&self, provider: &str) -> Result<Entry, SecretsError> {
        check_provider_id(provider)?;
        Entry::new(&self.service, provider).map_err(|error| keychain_error(provider, &error))
    }
}

impl SecretBackend for KeychainBackend {
    fn storage(&self) -> KeyStorage {
        KeyStorage::Keychain {
            service: self.service.clone(),
        }
    }

    fn read(&self, provider: &str) -> Result<Option<ApiKey>, SecretsError> {
        match self.entry(provider)?.get_password() {
            Ok(key) => Ok(Some(ApiKey::new(key))),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(error) => Err(keychain_error(provider, &error)),
        }
    }

    fn write(&self, provider: &str, key: &ApiKey) -> Result<(), SecretsError> {
        self.entry(provider)?
            .set_password(key.expose())
            .map_err(|error| keychain_error(provider, &error))
    }

    fn remove(&self, provider: &str) -> Result<bool, SecretsError> {
        match self.entry(provider)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring::Error::NoEntry) => Ok(false),
            Err(error) => Err(keychain_error(provider, &error)),
        }
    }
}

fn keychain_error(provider: &str, error: &keyring::Error) -> SecretsError {
    #[allow(
        clippy::wildcard_enum_match_arm,
        reason = "keyring::Error is foreign and non-exhaustive"
    )]
    match error {
        keyring::Error::BadEncoding(_) => SecretsError::BadEncoding {
            provider: provider.to_owned(),
        },
        keyring::Error::NoStorageAccess(_) => {
            SecretsError::KeychainUnavailable(KeychainUnavailable {
                reason: describe(error),
            })
        }
        _ => SecretsError::Keychain {
            provider: provider.to_owned(),
            reason: describe(error),
        },
    }
}

/// A description of a keychain error that cannot contain a secret: the variants that carry stored bytes or
/// attribute values are described by kind only; platform errors carry the platform's message (D-Bus errors,
/// OS status codes), which never includes item contents.
fn describe(error: &keyring::Error) -> String {
    #[allow(
        clippy::wildcard_enum_match_arm,
        reason = "keyring::Error is foreign and non-exhaustive"
    )]
    match error {
        keyring::Error::PlatformFailure(inner) => format!("platform failure: {inner}"),
        keyring::Error::NoStorageAccess(inner) => format!("no access to secure storage: {inner}"),
        keyring::Error::NoEntry => "no such item".to_owned(),
        keyring::Error::BadEncoding(_) => "a stored item is not valid text".to_owned(),
        keyring::Error::TooLong(attribute, limit) => {
            format!("the {attribute} is longer than the limit of {limit}")
        }
        keyring::Error::Invalid(attribute, reason) => format!("invalid {attribute}: {reason}"),
        keyring::Error::Ambiguous(items) => format!("{} matching items", items.len()),
        _ => "unexpected keychain error".to_owned(),
    }
}
