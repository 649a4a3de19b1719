//! [`SettingsService`]: the settings file and the API keys (`secrets`) of one config folder, as the settings
//! screen shows them ([`SettingsView`]s, ipc-contract.md, never holding a key), and the one way the app and
//! `pi-chat` make a session from them ([`SettingsService::session_options`]).
//!
//! Keys are stored only for the presets that need one, under pi's provider id of the preset. The key store is
//! opened on first use (probing the OS keychain can take a moment) and kept once it is ready. When no keychain
//! answers and the user has not accepted the key file, key commands fail with a `keychain` error that says so:
//! a key is never written to a file without that consent.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::desktop_paths::DesktopPaths;
use crate::language::Language;
use crate::secrets::{ApiKeys, KeyStorage, KeyStoreSetup, SecretsError, open_key_store};
use crate::session::SessionOptions;
use crate::settings::{
    ApiKey, ApiKeySource, ConnectionSettings, ProviderPreset, ResolveInputs, ResolvedSettings,
    SETTINGS_FILE_NAME, SendKey, SettingsFile, TcpProbe, Theme, default_config_dir, load_settings,
    resolve_settings, save_settings,
};

#[cfg(test)]
mod tests;

/// Opens the key store in a config folder (the real app probes the OS keychain; tests pass their own).
pub type KeyStoreOpener = Box<dyn Fn(&Path) -> KeyStoreSetup + Send + Sync>;

/// What kind of failure a [`SettingsServiceError`] is; the app branches on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingsFailure {
    /// The settings file cannot be read, or the settings name no usable provider.
    Settings,
    /// The settings or the key file cannot be written.
    Storage,
    /// The input is wrong.
    Invalid,
    /// The keychain failed, or keys cannot be kept without the user's consent.
    Keychain,
    /// The system lacks what the app needs (a home folder).
    Environment,
}

/// A failed settings call. `message` says what happened and what to do; it never holds a key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SettingsServiceError {
    /// What kind of failure.
    pub kind: SettingsFailure,
    /// What to tell the user.
    pub message: String,
}

impl SettingsServiceError {
    fn new(kind: SettingsFailure, message: impl Into<String>) -> SettingsServiceError {
        SettingsServiceError {
            kind,
            message: message.into(),
        }
    }
}

/// The settings file and the key store of one config folder. Cheap to clone.
#[derive(Clone)]
pub struct SettingsService {
    inner: Arc<Inner>,
}

struct Inner {
    config_dir: Option<PathBuf>,
    open_keys: KeyStoreOpener,
    keys: Mutex<Option<Arc<ApiKeys>>>,
}

/// The editable settings (`save_settings`' argument); empty strings mean "the preset's or the default value".
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SettingsInput {
    pub preset: String,
    pub api: String,
    pub base_url: String,
    pub model: String,
    pub thinking_level: String,
    pub system_prompt: String,
    /// `auto`, `en` or `zh`.
    #[ts(type = "\"auto\" | \"en\" | \"zh\"")]
    pub language: String,
    /// `system`, `light` or `dark` (absent: `system`).
    #[serde(default)]
    #[ts(type = "\"system\" | \"light\" | \"dark\"")]
    pub theme: String,
    /// `enter` or `ctrlEnter` (absent: `enter`).
    #[serde(default)]
    #[ts(type = "\"enter\" | \"ctrlEnter\"")]
    pub send_key: String,
    /// System notifications when a run ends or a tool call waits out of sight (absent: on).
    #[serde(default = "notifications_default")]
    pub notifications: bool,
    /// Closing the window hides it to the tray icon, where there is one, instead of quitting (absent: off).
    #[serde(default)]
    pub close_to_tray: bool,
    /// The app starts with its window hidden in the tray, where there is one (absent: off).
    #[serde(default)]
    pub start_minimized: bool,
    /// The global shortcut that opens the quick-ask window, as `Ctrl+Alt+Space` (absent or blank: that default).
    #[serde(default)]
    pub quick_ask_shortcut: String,
}

fn notifications_default() -> bool {
    true
}

/// One preset as the settings screen offers it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PresetView {
    pub id: &'static str,
    pub label: &'static str,
    pub api: &'static str,
    pub base_url: &'static str,
    pub model: &'static str,
    pub needs_key: bool,
}

/// What `get_settings` and the other settings commands return: never the key, only whether one is stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SettingsView {
    #[serde(flatten)]
    pub settings: SettingsInput,
    pub api_key_set: bool,
    /// The presets (ids) a key is stored for, so the form can say whether the provider it shows has one.
    pub keys_stored: Vec<&'static str>,
    pub key_storage: KeyStorageView,
    pub presets: Vec<PresetView>,
    /// The language the host writes in while `language` is "auto" (from the locale); the window follows it too,
    /// so the two never disagree.
    #[ts(type = "\"en\" | \"zh\"")]
    pub system_language: Language,
}

/// Where keys go, as the settings screen shows it; `Unavailable` means no keychain answered and the user has
/// not accepted the private key file yet (the screen offers it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum KeyStorageView {
    Keychain,
    File,
    Unavailable,
}

impl SettingsService {
    /// The service over the platform's config folder (`~/.config/pi-desktop`) and the OS keychain.
    pub fn from_platform() -> SettingsService {
        SettingsService::new(default_config_dir(), Box::new(open_key_store))
    }

    pub fn new(config_dir: Option<PathBuf>, open_keys: KeyStoreOpener) -> SettingsService {
        SettingsService {
            inner: Arc::new(Inner {
                config_dir,
                open_keys,
                keys: Mutex::new(None),
            }),
        }
    }

    /// The config folder (settings, keys, `mcp.json`), if the platform names one.
    pub fn config_dir(&self) -> Option<&Path> {
        self.inner.config_dir.as_deref()
    }

    /// Where the settings file is, if the platform names a config folder.
    pub fn settings_path(&self) -> Option<PathBuf> {
        self.inner
            .config_dir
            .as_ref()
            .map(|dir| dir.join(SETTINGS_FILE_NAME))
    }

    /// The stored settings resolved with the environment `env` (the settings file, the stored keys, then
    /// `PI_API`, `PI_BASE_URL`, `PI_MODEL`, `PI_API_KEY` and the provider key variables); `key_env_override`
    /// names another variable to read the key from.
    pub fn resolve(
        &self,
        env: &HashMap<String, String>,
        key_env_override: Option<&str>,
    ) -> Result<ResolvedSettings, SettingsServiceError> {
        let file = self.load()?;
        let settings_path = self.settings_path();
        let mut resolved = resolve_settings(&ResolveInputs {
            file: &file,
            env,
            key_env_override,
            key_source: self,
            probe: &TcpProbe::default(),
            settings_path: settings_path.as_deref(),
        })
        .map_err(|error| SettingsServiceError::new(SettingsFailure::Settings, error.to_string()))?;
        resolved.connection = self.options_of(&ConnectionSettings::from_file(&file))?;
        Ok(resolved)
    }

    /// The options of a new session: the settings resolved now ([`SettingsService::resolve`]) and the user's
    /// real folders. The app and `pi-chat` both make their sessions this way.
    pub fn session_options(
        &self,
        env: &HashMap<String, String>,
        key_env_override: Option<&str>,
    ) -> Result<SessionOptions, SettingsServiceError> {
        let settings = self.resolve(env, key_env_override)?;
        let paths = DesktopPaths::detect().ok_or_else(|| {
            SettingsServiceError::new(
                SettingsFailure::Environment,
                "Cannot find your home folder; set HOME and start again.",
            )
        })?;
        Ok(SessionOptions::new(settings, paths))
    }

    /// The stored settings (empty when there is no file or no config folder).
    pub fn load(&self) -> Result<SettingsFile, SettingsServiceError> {
        match self.settings_path() {
            Some(path) => load_settings(&path).map_err(|error| {
                SettingsServiceError::new(
                    SettingsFailure::Settings,
                    format!("{error}. Fix or delete the file, then try again."),
                )
            }),
            None => Ok(SettingsFile::default()),
        }
    }

    /// The settings screen's view of the stored settings.
    pub fn view(&self) -> Result<SettingsView, SettingsServiceError> {
        let file = self.load()?;
        let keys = self.key_store()?;
        let api_key_set = match (key_provider(&file), keys.as_ref()) {
            (Some(provider), Some(keys)) => keys.has_key(provider).map_err(keychain_error)?,
            _ => false,
        };
        let keys_stored = match keys.as_ref() {
            Some(keys) => stored_key_presets(keys)?,
            None => Vec::new(),
        };
        let key_storage = match keys.map(|keys| keys.storage()) {
            Some(KeyStorage::Keychain { .. }) => KeyStorageView::Keychain,
            Some(KeyStorage::File { .. }) => KeyStorageView::File,
            None => KeyStorageView::Unavailable,
        };
        Ok(SettingsView {
            settings: input_from_file(&file),
            api_key_set,
            keys_stored,
            key_storage,
            presets: ProviderPreset::ALL.into_iter().map(preset_view).collect(),
            system_language: Language::from_locale_env(&std::env::vars().collect()),
        })
    }

    /// Writes `input` over the stored settings (keys this app does not know stay) and returns the new view.
    pub fn save(&self, input: &SettingsInput) -> Result<SettingsView, SettingsServiceError> {
        let path = self.settings_path().ok_or_else(|| {
            SettingsServiceError::new(
                SettingsFailure::Storage,
                "This system names no config folder for the settings; set HOME and restart the app.",
            )
        })?;
        let mut file = self.load()?;
        apply_input(&mut file, input)?;
        save_settings(&path, &file).map_err(|error| {
            SettingsServiceError::new(
                SettingsFailure::Storage,
                format!("{error}. Check that the folder is writable and the disk has space."),
            )
        })?;
        self.view()
    }

    /// Stores `key` (write-only) for the provider of `preset`, the one the form shows (blank: the saved
    /// preset's), whatever is saved yet, and returns the new view.
    pub fn set_api_key(
        &self,
        preset: &str,
        key: &str,
    ) -> Result<SettingsView, SettingsServiceError> {
        let provider = self.key_provider_for(preset)?.ok_or_else(no_key_provider)?;
        let keys = self
            .key_store()?
            .ok_or_else(|| self.needs_consent_error())?;
        keys.set_key(provider, &ApiKey::new(key.trim()))
            .map_err(keychain_error)?;
        self.view()
    }

    /// Deletes the stored key of `preset`'s provider (blank: the saved preset's; a no-op when none is stored)
    /// and returns the new view.
    pub fn delete_api_key(&self, preset: &str) -> Result<SettingsView, SettingsServiceError> {
        if let Some(provider) = self.key_provider_for(preset)?
            && let Some(keys) = self.key_store()?
        {
            keys.delete_key(provider).map_err(keychain_error)?;
        }
        self.view()
    }

    /// pi's provider id a key for `preset` is kept under: the named preset's, else the saved one's; `None`
    /// when that preset takes no key.
    fn key_provider_for(&self, preset: &str) -> Result<Option<&'static str>, SettingsServiceError> {
        if preset.trim().is_empty() {
            return Ok(key_provider(&self.load()?));
        }
        let preset = ProviderPreset::parse(preset).ok_or_else(|| {
            SettingsServiceError::new(
                SettingsFailure::Invalid,
                format!(
                    "Unknown provider preset {:?}: pick one from the list.",
                    preset.trim()
                ),
            )
        })?;
        let defaults = preset.defaults();
        Ok(defaults.key_env.map(|_| defaults.provider))
    }

    /// The value kept under `name` in the key store (an MCP server's `{"keychain": NAME}` value); `None` when
    /// none is kept or keys cannot be kept yet.
    pub fn secret(&self, name: &str) -> Result<Option<ApiKey>, SettingsServiceError> {
        match self.key_store()? {
            Some(keys) => keys
                .api_key(name)
                .map_err(|message| SettingsServiceError::new(SettingsFailure::Storage, message)),
            None => Ok(None),
        }
    }

    /// Keeps `value` under `name` in the key store, replacing an earlier one.
    pub fn store_secret(&self, name: &str, value: &str) -> Result<(), SettingsServiceError> {
        let keys = self
            .key_store()?
            .ok_or_else(|| self.needs_consent_error())?;
        keys.set_key(name, &ApiKey::new(value))
            .map_err(keychain_error)
    }

    /// Deletes the value kept under `name` (a no-op when there is none).
    pub fn delete_secret(&self, name: &str) -> Result<(), SettingsServiceError> {
        if let Some(keys) = self.key_store()? {
            keys.delete_key(name).map_err(keychain_error)?;
        }
        Ok(())
    }

    /// The user confirmed the private key file: creates it (owner-only) when no keychain answers and keeps keys
    /// there from now on. A no-op when keys can already be stored.
    pub fn accept_key_file_fallback(&self) -> Result<SettingsView, SettingsServiceError> {
        {
            let mut keys = self
                .inner
                .keys
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if keys.is_none() {
                let config_dir = self.inner.config_dir.as_deref().ok_or_else(|| {
                    SettingsServiceError::new(
                        SettingsFailure::Storage,
                        "This system names no config folder for the key file; set HOME and restart the app.",
                    )
                })?;
                let ready = match (self.inner.open_keys)(config_dir) {
                    KeyStoreSetup::Ready(ready) => ready,
                    KeyStoreSetup::NeedsFallbackConsent(offer) => {
                        offer.accept().map_err(|error| {
                            SettingsServiceError::new(
                                SettingsFailure::Storage,
                                format!(
                                    "{error}. Check that the config folder is writable and try again."
                                ),
                            )
                        })?
                    }
                };
                tracing::info!(storage = ?ready.storage(), "key store ready after consent");
                *keys = Some(Arc::new(ready));
            }
        }
        self.view()
    }

    /// The key store when keys can be kept; `None` while the fallback file still needs the user's consent.
    fn key_store(&self) -> Result<Option<Arc<ApiKeys>>, SettingsServiceError> {
        let mut keys = self
            .inner
            .keys
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(ready) = keys.as_ref() {
            return Ok(Some(Arc::clone(ready)));
        }
        let Some(config_dir) = self.inner.config_dir.as_deref() else {
            return Ok(None);
        };
        match (self.inner.open_keys)(config_dir) {
            KeyStoreSetup::Ready(ready) => {
                let ready = Arc::new(ready);
                *keys = Some(Arc::clone(&ready));
                Ok(Some(ready))
            }
            KeyStoreSetup::NeedsFallbackConsent(offer) => {
                tracing::warn!(reason = %offer.keychain_unavailable, "no keychain for API keys");
                Ok(None)
            }
        }
    }

    fn needs_consent_error(&self) -> SettingsServiceError {
        let reason = match self.inner.config_dir.as_deref() {
            Some(config_dir) => match (self.inner.open_keys)(config_dir) {
                KeyStoreSetup::NeedsFallbackConsent(offer) => {
                    offer.keychain_unavailable.to_string()
                }
                KeyStoreSetup::Ready(_) => "the key store was not ready".to_owned(),
            },
            None => "this system names no config folder".to_owned(),
        };
        SettingsServiceError::new(
            SettingsFailure::Keychain,
            format!(
                "Cannot store the key: {reason}. Start your desktop's keyring (Secret Service), or set the key's \
                 environment variable (for example OPENAI_API_KEY) before starting the app. Keys are never saved \
                 to a file without your consent."
            ),
        )
    }
}

/// Session settings read stored keys through this; it never opens a file without consent.
impl ApiKeySource for SettingsService {
    fn api_key(&self, provider: &str) -> Result<Option<ApiKey>, String> {
        if !provider_takes_key(provider) {
            return Ok(None);
        }
        match self.key_store() {
            Ok(Some(keys)) => keys.api_key(provider),
            Ok(None) => Ok(None),
            Err(error) => Err(error.message),
        }
    }
}

fn provider_takes_key(provider: &str) -> bool {
    ProviderPreset::ALL.into_iter().any(|preset| {
        let defaults = preset.defaults();
        defaults.provider == provider && defaults.key_env.is_some()
    })
}

/// pi's provider id the stored key belongs to: the chosen preset's, when it takes a key.
fn key_provider(file: &SettingsFile) -> Option<&'static str> {
    file.provider
        .map(ProviderPreset::defaults)
        .filter(|defaults| defaults.key_env.is_some())
        .map(|defaults| defaults.provider)
}

/// The presets whose key is stored, in the presets' order.
fn stored_key_presets(keys: &ApiKeys) -> Result<Vec<&'static str>, SettingsServiceError> {
    let mut stored = Vec::new();
    for preset in ProviderPreset::ALL {
        let defaults = preset.defaults();
        if defaults.key_env.is_some() && keys.has_key(defaults.provider).map_err(keychain_error)? {
            stored.push(preset.as_str());
        }
    }
    Ok(stored)
}

fn no_key_provider() -> SettingsServiceError {
    SettingsServiceError::new(
        SettingsFailure::Invalid,
        "This provider takes no key: choose one that does (OpenAI, Anthropic, DeepSeek, OpenRouter, Qwen, or \
         Custom, OpenAI-compatible).",
    )
}

fn keychain_error(error: SecretsError) -> SettingsServiceError {
    let kind = match error {
        SecretsError::InvalidProvider(_) | SecretsError::EmptyKey => SettingsFailure::Invalid,
        _ => SettingsFailure::Keychain,
    };
    SettingsServiceError::new(
        kind,
        format!("{error}. Check your desktop's keyring and try again."),
    )
}

fn preset_label(preset: ProviderPreset) -> &'static str {
    match preset {
        ProviderPreset::Openai => "OpenAI",
        ProviderPreset::Anthropic => "Anthropic",
        ProviderPreset::Deepseek => "DeepSeek",
        ProviderPreset::Openrouter => "OpenRouter",
        ProviderPreset::Qwen => "Qwen (DashScope)",
        ProviderPreset::Ollama => "Ollama (local)",
        ProviderPreset::LlamaCpp => "llama.cpp (local)",
        ProviderPreset::Custom => "Custom, OpenAI-compatible",
    }
}

fn preset_view(preset: ProviderPreset) -> PresetView {
    let defaults = preset.defaults();
    PresetView {
        id: preset.as_str(),
        label: preset_label(preset),
        api: defaults.api,
        base_url: defaults.base_url,
        model: defaults.model,
        needs_key: defaults.key_env.is_some(),
    }
}

fn input_from_file(file: &SettingsFile) -> SettingsInput {
    let defaults = file.provider.map(ProviderPreset::defaults);
    SettingsInput {
        preset: file
            .provider
            .map(ProviderPreset::as_str)
            .unwrap_or_default()
            .to_owned(),
        api: file
            .api
            .clone()
            .or_else(|| defaults.map(|d| d.api.to_owned()))
            .unwrap_or_default(),
        base_url: file
            .base_url
            .clone()
            .or_else(|| defaults.map(|d| d.base_url.to_owned()))
            .unwrap_or_default(),
        model: file
            .model
            .clone()
            .or_else(|| defaults.map(|d| d.model.to_owned()))
            .unwrap_or_default(),
        thinking_level: file.thinking_level.unwrap_or_default().as_str().to_owned(),
        system_prompt: file.system_prompt.clone().unwrap_or_default(),
        language: match file.language {
            None => "auto",
            Some(Language::En) => "en",
            Some(Language::Zh) => "zh",
        }
        .to_owned(),
        theme: file.theme.unwrap_or_default().as_str().to_owned(),
        send_key: file.send_key.unwrap_or_default().as_str().to_owned(),
        notifications: file.notifications.unwrap_or(true),
        close_to_tray: file.close_to_tray.unwrap_or(false),
        start_minimized: file.start_minimized.unwrap_or(false),
        quick_ask_shortcut: file.quick_ask_shortcut.clone().unwrap_or_default(),
    }
}

/// The input over `file`; blank fields fall back to the preset's or the default value.
fn apply_input(file: &mut SettingsFile, input: &SettingsInput) -> Result<(), SettingsServiceError> {
    let invalid = |what: String| SettingsServiceError::new(SettingsFailure::Invalid, what);
    let non_blank = |value: &str| Some(value.trim().to_owned()).filter(|value| !value.is_empty());
    file.provider = match non_blank(&input.preset) {
        None => None,
        Some(name) => Some(ProviderPreset::parse(&name).ok_or_else(|| {
            invalid(format!(
                "Unknown provider preset {name:?}: pick one from the list."
            ))
        })?),
    };
    file.api = non_blank(&input.api);
    file.base_url = non_blank(&input.base_url);
    file.model = non_blank(&input.model);
    file.thinking_level = match non_blank(&input.thinking_level) {
        None => None,
        // The level's type comes from the settings file's field; its serde names are the wire names.
        Some(level) => Some(
            serde_json::from_value(serde_json::Value::String(level.clone())).map_err(|_| {
                    invalid(format!(
                        "Unknown thinking level {level:?}: use off, minimal, low, medium, high or xhigh."
                    ))
                })?,
        ),
    };
    file.system_prompt = non_blank(&input.system_prompt);
    file.language = match input.language.trim() {
        "" | "auto" => None,
        "en" => Some(Language::En),
        "zh" => Some(Language::Zh),
        other => {
            return Err(invalid(format!(
                "Unknown language {other:?}: use auto, en or zh."
            )));
        }
    };
    // The defaults are written as the keys' absence, like `auto` for the language.
    file.theme = match input.theme.trim() {
        "" => None,
        name => match Theme::parse(name) {
            Some(Theme::System) => None,
            Some(theme) => Some(theme),
            None => {
                return Err(invalid(format!(
                    "Unknown theme {name:?}: use system, light or dark."
                )));
            }
        },
    };
    file.send_key = match input.send_key.trim() {
        "" => None,
        name => match SendKey::parse(name) {
            Some(SendKey::Enter) => None,
            Some(key) => Some(key),
            None => {
                return Err(invalid(format!(
                    "Unknown send key {name:?}: use enter or ctrlEnter."
                )));
            }
        },
    };
    file.notifications = (!input.notifications).then_some(false);
    file.close_to_tray = input.close_to_tray.then_some(true);
    file.start_minimized = input.start_minimized.then_some(true);
    file.quick_ask_shortcut = non_blank(&input.quick_ask_shortcut);
    Ok(())
}
