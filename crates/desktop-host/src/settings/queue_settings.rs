//! The queue settings of the settings screen: how many steering messages, and how many follow-ups, one poll of
//! the loop delivers (pi's `steeringMode` and `followUpMode`). Kept in the settings file beside the provider
//! settings (`steeringMode`, `followUpMode`); saving changes only those keys.

use serde::{Deserialize, Serialize};

use crate::session::QueueMode;
use crate::settings::{SettingsFile, SettingsService, SettingsServiceError};

/// What the settings screen's queue section reads and saves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct QueueSettings {
    /// Steering messages: one per turn, or all waiting ones in one turn.
    pub steering_mode: QueueMode,
    /// Follow-ups: one each time the agent would stop, or all at once.
    pub follow_up_mode: QueueMode,
}

impl QueueSettings {
    fn from_file(file: &SettingsFile) -> QueueSettings {
        QueueSettings {
            steering_mode: file.steering_mode.unwrap_or_default(),
            follow_up_mode: file.follow_up_mode.unwrap_or_default(),
        }
    }
}

impl SettingsService {
    /// The stored queue modes (the defaults when there is no file).
    pub fn queue_settings(&self) -> Result<QueueSettings, SettingsServiceError> {
        Ok(QueueSettings::from_file(&self.load()?))
    }

    /// Writes `settings` into the settings file (every other key stays) and returns what is stored now. Sessions
    /// take it when the caller applies the resolved settings to them.
    pub fn save_queue_settings(
        &self,
        settings: QueueSettings,
    ) -> Result<QueueSettings, SettingsServiceError> {
        // One at a time is the default, so it is written as the key's absence.
        let stored = |mode: QueueMode| (mode != QueueMode::default()).then_some(mode);
        self.update_file(|file| {
            file.steering_mode = stored(settings.steering_mode);
            file.follow_up_mode = stored(settings.follow_up_mode);
        })?;
        self.queue_settings()
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::{Value, json};

    use super::*;
    use crate::settings::SETTINGS_FILE_NAME;

    fn service(config_dir: &std::path::Path) -> SettingsService {
        crate::settings::file_update::service_without_keychain(config_dir)
    }

    fn stored(path: &std::path::Path) -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn both_modes_are_one_at_a_time_by_default_and_saving_them_keeps_the_other_settings() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join(SETTINGS_FILE_NAME);
        std::fs::write(&path, r#"{"model":"m1","theme":"dark"}"#).unwrap();
        let service = service(folder.path());
        assert_eq!(
            service.queue_settings().unwrap(),
            QueueSettings {
                steering_mode: QueueMode::OneAtATime,
                follow_up_mode: QueueMode::OneAtATime,
            }
        );

        let all_steering = QueueSettings {
            steering_mode: QueueMode::All,
            follow_up_mode: QueueMode::OneAtATime,
        };
        assert_eq!(
            service.save_queue_settings(all_steering).unwrap(),
            all_steering
        );
        assert_eq!(
            stored(&path),
            json!({"model": "m1", "theme": "dark", "steeringMode": "all"})
        );
        // Sessions get the modes through the one resolution the app and pi-chat share.
        let env = [("PI_API".to_owned(), "scripted".to_owned())].into();
        let resolved = service.resolve(&env, None).unwrap();
        assert_eq!(
            (resolved.steering_mode, resolved.follow_up_mode),
            (QueueMode::All, QueueMode::OneAtATime)
        );

        service
            .save_queue_settings(QueueSettings::default())
            .unwrap();
        assert_eq!(stored(&path), json!({"model": "m1", "theme": "dark"}));
    }
}
