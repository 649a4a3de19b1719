//! Provider settings: the settings file, the presets, API keys, the one resolution the app and `pi-chat`
//! share ([`resolve_settings`]) and the service over one config folder ([`SettingsService`]); beside them the
//! connection settings ([`ConnectionSettings`]: timeouts, retries, proxy), the approval settings
//! ([`ApprovalSettings`]), the queue modes of steering and follow-ups ([`QueueSettings`]) and the window's
//! theme and send key ([`Theme`], [`SendKey`]).

mod api_key;
mod approval_settings;
mod connection_settings;
mod file;
mod file_update;
mod presets;
mod proxy_password;
mod queue_settings;
mod resolve;
mod service;
mod window_preferences;

pub use api_key::{ApiKey, ApiKeyOrigin, ApiKeySource, NoKeySource};
pub use approval_settings::ApprovalSettings;
pub use connection_settings::{
    ConnectionOptions, ConnectionSettings, DEFAULT_HEAD_TIMEOUT_SECONDS,
    DEFAULT_IDLE_TIMEOUT_SECONDS, DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_DELAY_SECONDS,
    ProxySetting,
};
pub use file::{
    APP_FOLDER_NAME, SETTINGS_FILE_NAME, SettingsFile, SettingsFileError, default_config_dir,
    load_settings, save_settings,
};
pub use presets::{OLLAMA_DEFAULT_BASE_URL, PresetDefaults, ProviderPreset};
pub use queue_settings::QueueSettings;
pub use resolve::{
    DEFAULT_SYSTEM_PROMPT_EN, DEFAULT_SYSTEM_PROMPT_ZH, LocalServerProbe, ProviderChoice,
    ResolveInputs, ResolvedSettings, SUPPORTED_APIS, SettingsError, TcpProbe, resolve_settings,
};
pub use service::{
    KeyStorageView, KeyStoreOpener, PresetView, SettingsFailure, SettingsInput, SettingsService,
    SettingsServiceError, SettingsView,
};
pub use window_preferences::{SendKey, Theme};
