//! The approval settings of the settings screen: whether the built-in desktop tools ask before they run. Kept in
//! the settings file beside the provider settings (`askBeforeBuiltInTools`); saving changes only that key.

use serde::{Deserialize, Serialize};

use crate::settings::{SettingsFile, SettingsService, SettingsServiceError};

/// What the settings screen's approval section reads and saves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ApprovalSettings {
    /// Every built-in desktop tool call asks first, with the approval card an MCP call gets.
    pub ask_before_built_in_tools: bool,
}

impl ApprovalSettings {
    fn from_file(file: &SettingsFile) -> ApprovalSettings {
        ApprovalSettings {
            ask_before_built_in_tools: file.ask_before_built_in_tools.unwrap_or(false),
        }
    }
}

impl SettingsService {
    /// The stored approval settings (the defaults when there is no file).
    pub fn approval_settings(&self) -> Result<ApprovalSettings, SettingsServiceError> {
        Ok(ApprovalSettings::from_file(&self.load()?))
    }

    /// Writes `settings` into the settings file (every other key stays) and returns what is stored now. Sessions
    /// take it when the caller applies the resolved settings to them.
    pub fn save_approval_settings(
        &self,
        settings: ApprovalSettings,
    ) -> Result<ApprovalSettings, SettingsServiceError> {
        // Off is the default, so it is written as the key's absence.
        self.update_file(|file| {
            file.ask_before_built_in_tools = settings.ask_before_built_in_tools.then_some(true);
        })?;
        self.approval_settings()
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

    #[test]
    fn asking_before_built_in_tools_is_off_by_default_and_saving_it_keeps_the_other_settings() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join(SETTINGS_FILE_NAME);
        std::fs::write(&path, r#"{"provider":"deepseek","theme":"dark"}"#).unwrap();
        let service = service(folder.path());
        assert_eq!(
            service.approval_settings().unwrap(),
            ApprovalSettings {
                ask_before_built_in_tools: false
            }
        );

        let on = ApprovalSettings {
            ask_before_built_in_tools: true,
        };
        assert_eq!(service.save_approval_settings(on).unwrap(), on);
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            saved,
            json!({"provider": "deepseek", "theme": "dark", "askBeforeBuiltInTools": true})
        );

        service
            .save_approval_settings(ApprovalSettings::default())
            .unwrap();
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(saved, json!({"provider": "deepseek", "theme": "dark"}));
    }
}
