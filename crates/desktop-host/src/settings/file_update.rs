//! One way to change the settings file for the settings' sections (approval, steering queue, connection): read
//! it, change what the section owns, write it back — every key the app does not know stays — with the errors
//! the settings screen shows.

use super::file::{SettingsFile, save_settings};
use super::service::{SettingsFailure, SettingsService, SettingsServiceError};

impl SettingsService {
    /// Reads the settings file, lets `change` set what it owns, and writes the file back.
    pub(crate) fn update_file(
        &self,
        change: impl FnOnce(&mut SettingsFile),
    ) -> Result<(), SettingsServiceError> {
        let path = self.settings_path().ok_or_else(|| SettingsServiceError {
            kind: SettingsFailure::Storage,
            message:
                "This system names no config folder for the settings; set HOME and restart the app."
                    .to_owned(),
        })?;
        let mut file = self.load()?;
        change(&mut file);
        save_settings(&path, &file).map_err(|error| SettingsServiceError {
            kind: SettingsFailure::Storage,
            message: format!("{error}. Check that the folder is writable and the disk has space."),
        })
    }
}

/// A settings service over `config_dir` with no keychain (the sections' tests need none).
#[cfg(test)]
pub(crate) fn service_without_keychain(config_dir: &std::path::Path) -> SettingsService {
    use crate::secrets::{FallbackOffer, KeyStoreSetup, KeychainUnavailable};

    SettingsService::new(
        Some(config_dir.to_path_buf()),
        Box::new(|dir: &std::path::Path| {
            KeyStoreSetup::NeedsFallbackConsent(FallbackOffer {
                keychain_unavailable: KeychainUnavailable {
                    reason: "not in tests".to_owned(),
                },
                file: dir.join("api-keys.json"),
            })
        }),
    )
}
