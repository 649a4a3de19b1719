//! The settings file (`settings.json` in the app's config folder): the user's chosen provider and model, the
//! connection's timeouts, retries and proxy, whether the built-in tools ask before they run, and the window's
//! theme, send key, system notifications and tray.
//!
//! Contract: unknown keys survive a load/save round trip (the app may store more than this crate knows); a
//! missing file is the empty settings; saving writes a temporary file and renames it, so a crash never leaves a
//! half-written file. The file never holds an API key (keys live in the keychain, see `secrets`).

use std::path::{Path, PathBuf};

use pi_ai::ModelThinkingLevel;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::language::Language;
use crate::session::QueueMode;
use crate::settings::presets::ProviderPreset;
use crate::settings::window_preferences::{SendKey, Theme};

/// The name of the settings file inside the config folder.
pub const SETTINGS_FILE_NAME: &str = "settings.json";

/// The app's folder name under the platform config folder.
pub const APP_FOLDER_NAME: &str = "pi-desktop";

/// The settings as stored. Every field is optional: absent means "use the preset's or the default value".
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingsFile {
    /// The provider preset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderPreset>,
    /// The wire protocol (overrides the preset's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
    /// The endpoint base (overrides the preset's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The model id (overrides the preset's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The thinking level (default `off`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_level: Option<ModelThinkingLevel>,
    /// Seconds a stream may stay silent before it ends as an error (default 120, see `ConnectionSettings`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_timeout_seconds: Option<u32>,
    /// Seconds a request may wait for the response head (default 120).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_timeout_seconds: Option<u32>,
    /// Retries of a request that failed before any answer arrived (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retries: Option<u32>,
    /// The longest server-requested retry wait honoured, in seconds (default 60; 0 = any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retry_delay_seconds: Option<u32>,
    /// The proxy (default the system's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<crate::settings::ProxySetting>,
    /// The system prompt (default: the desktop assistant prompt in the user's language).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The language of host-written texts (default: from the locale).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
    /// The window's colour theme (default: the system's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<Theme>,
    /// The key that sends the composer's text (default Enter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_key: Option<SendKey>,
    /// System notifications of runs and approvals out of sight (default on; stored only as `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notifications: Option<bool>,
    /// Closing the window hides it to the tray icon instead of quitting (default off; stored only as `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub close_to_tray: Option<bool>,
    /// The app starts with its window hidden in the tray, where there is one (default off; stored only as `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_minimized: Option<bool>,
    /// The global shortcut that opens the quick-ask window (default Ctrl+Alt+Space).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quick_ask_shortcut: Option<String>,
    /// Every call of a built-in desktop tool asks first, like an MCP tool's (default off: they only read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ask_before_built_in_tools: Option<bool>,
    /// How many steering messages one poll delivers (default one at a time, as pi).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steering_mode: Option<QueueMode>,
    /// How many follow-ups one poll delivers (default one at a time, as pi).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_up_mode: Option<QueueMode>,
    /// Keys this crate does not know, kept as they are.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Why the settings file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum SettingsFileError {
    /// Reading or writing failed.
    #[error("cannot access settings file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The file is not valid settings JSON.
    #[error("settings file {path} is not valid: {source}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The parse error.
        source: serde_json::Error,
    },
}

/// The app's config folder on this platform (`~/.config/pi-desktop` on Linux), if the platform names one.
pub fn default_config_dir() -> Option<PathBuf> {
    dirs::config_dir().map(|dir| dir.join(APP_FOLDER_NAME))
}

/// Loads `path`; a missing file gives the empty settings.
pub fn load_settings(path: &Path) -> Result<SettingsFile, SettingsFileError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(SettingsFile::default());
        }
        Err(source) => {
            return Err(SettingsFileError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    serde_json::from_str(&text).map_err(|source| SettingsFileError::Invalid {
        path: path.to_path_buf(),
        source,
    })
}

/// Saves `settings` to `path` atomically, creating the folder when needed.
pub fn save_settings(path: &Path, settings: &SettingsFile) -> Result<(), SettingsFileError> {
    let io_error = |source| SettingsFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_error)?;
    }
    let json =
        serde_json::to_string_pretty(settings).map_err(|source| SettingsFileError::Invalid {
            path: path.to_path_buf(),
            source,
        })?;
    let temporary = path.with_extension("json.tmp");
    std::fs::write(&temporary, json).map_err(io_error)?;
    std::fs::rename(&temporary, path).map_err(io_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn settings_round_trip_and_keep_unknown_keys() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("nested").join(SETTINGS_FILE_NAME);
        assert_eq!(load_settings(&path).unwrap(), SettingsFile::default());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            r#"{"provider":"deepseek","model":"deepseek-reasoner","thinkingLevel":"high","windowWidth":900}"#,
        )
        .unwrap();
        let settings = load_settings(&path).unwrap();
        assert_eq!(settings.provider, Some(ProviderPreset::Deepseek));
        assert_eq!(settings.thinking_level, Some(ModelThinkingLevel::High));
        save_settings(&path, &settings).unwrap();
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            saved,
            serde_json::json!({"provider":"deepseek","model":"deepseek-reasoner","thinkingLevel":"high","windowWidth":900})
        );
    }

    #[test]
    fn the_theme_and_send_key_are_read_and_written_under_their_names() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join(SETTINGS_FILE_NAME);
        std::fs::write(&path, r#"{"theme":"dark","sendKey":"ctrlEnter"}"#).unwrap();
        let settings = load_settings(&path).unwrap();
        assert_eq!(settings.theme, Some(Theme::Dark));
        assert_eq!(settings.send_key, Some(SendKey::CtrlEnter));
        assert!(settings.other.is_empty());
        save_settings(&path, &settings).unwrap();
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            saved,
            serde_json::json!({"theme":"dark","sendKey":"ctrlEnter"})
        );
    }

    #[test]
    fn an_unknown_theme_is_an_invalid_file() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join(SETTINGS_FILE_NAME);
        std::fs::write(&path, r#"{"theme":"sepia"}"#).unwrap();
        assert!(matches!(
            load_settings(&path),
            Err(SettingsFileError::Invalid { .. })
        ));
    }

    #[test]
    fn a_broken_file_is_an_error_not_the_defaults() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join(SETTINGS_FILE_NAME);
        std::fs::write(&path, "{ not json").unwrap();
        assert!(matches!(
            load_settings(&path),
            Err(SettingsFileError::Invalid { .. })
        ));
    }
}
