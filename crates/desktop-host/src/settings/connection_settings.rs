//! The connection settings of the settings screen: how long a silent stream and a missing response head may last,
//! how often a request that failed before any answer arrived is retried, and which proxy requests take. Kept in
//! the settings file beside the provider settings (`idleTimeoutSeconds`, `headTimeoutSeconds`, `maxRetries`,
//! `maxRetryDelaySeconds`, `proxy`); saving changes only those keys, and a value equal to its default is written
//! as the key's absence.
//!
//! The defaults, and why:
//! - idle timeout 120 s: hosted APIs send something (text, a reasoning summary, a keep-alive ping) every few
//!   seconds, so two minutes of silence means a stalled connection, not a slow model; pi itself waits forever, and
//!   this crate's floor (300 s) is far longer than a user waits for a frozen answer.
//! - head timeout 120 s: a streaming response's head comes within seconds from a hosted API; a local server that
//!   loads a large model from disk before answering is the slow case this leaves room for.
//! - 3 retries, a server-requested wait of at most 60 s: a 429 or a passing 5xx usually clears within a few
//!   seconds; a server asking for longer than a minute is better reported than waited for silently (pi's cap).
//! - the system's proxy: what the rest of the desktop uses; loopback servers never go through it.

use std::time::Duration;

use pi_ai::providers::{ProxyChoice, redact_credentials};
use serde::{Deserialize, Serialize};

use crate::settings::proxy_password::{self, PROXY_PASSWORD_SECRET};
use crate::settings::{SettingsFailure, SettingsFile, SettingsService, SettingsServiceError};

/// The idle timeout when the settings name none, in seconds.
pub const DEFAULT_IDLE_TIMEOUT_SECONDS: u32 = 120;
/// The head timeout when the settings name none, in seconds.
pub const DEFAULT_HEAD_TIMEOUT_SECONDS: u32 = 120;
/// The retries when the settings name none.
pub const DEFAULT_MAX_RETRIES: u32 = 3;
/// The longest server-requested retry wait honoured when the settings name none, in seconds.
pub const DEFAULT_MAX_RETRY_DELAY_SECONDS: u32 = 60;

/// The range the timeouts may take, in seconds.
const TIMEOUT_RANGE: std::ops::RangeInclusive<u32> = 5..=3_600;
/// The most retries the settings accept.
const MAX_RETRIES_LIMIT: u32 = 10;

/// Which proxy the app's requests to providers take.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "mode", rename_all = "lowercase")]
#[ts(export)]
pub enum ProxySetting {
    /// The system's (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, `NO_PROXY`; on macOS and Windows the OS settings).
    #[default]
    System,
    /// None, whatever the environment says.
    None,
    /// This proxy: `http://`, `https://`, `socks5://` or `socks5h://`, credentials allowed (`user:pass@`).
    Manual {
        /// The proxy URL.
        url: String,
    },
}

impl ProxySetting {
    /// pi-ai's choice for this setting.
    pub fn choice(&self) -> ProxyChoice {
        match self {
            ProxySetting::System => ProxyChoice::System,
            ProxySetting::None => ProxyChoice::Direct,
            ProxySetting::Manual { url } => ProxyChoice::Manual(url.trim().to_owned()),
        }
    }
}

/// What the settings screen's connection section reads and saves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConnectionSettings {
    /// A stream that sends nothing for this long ends as an error, its partial answer kept (5 to 3600).
    pub idle_timeout_seconds: u32,
    /// A request whose response head has not arrived after this long fails (or is retried) (5 to 3600).
    pub head_timeout_seconds: u32,
    /// Retries of a request that failed (429, 5xx, timeout, connection) before any answer arrived (0 to 10).
    pub max_retries: u32,
    /// A server asking to wait longer than this before a retry is reported instead (0 = any wait).
    pub max_retry_delay_seconds: u32,
    /// The proxy (a manual one's URL without its password).
    pub proxy: ProxySetting,
    /// A password for the manual proxy's user is kept in the key store. Read only: saving a URL with a password
    /// replaces it, a URL with the user alone keeps it, a URL without a user removes it.
    #[serde(default)]
    pub proxy_password_set: bool,
}

impl Default for ConnectionSettings {
    fn default() -> Self {
        ConnectionSettings {
            idle_timeout_seconds: DEFAULT_IDLE_TIMEOUT_SECONDS,
            head_timeout_seconds: DEFAULT_HEAD_TIMEOUT_SECONDS,
            max_retries: DEFAULT_MAX_RETRIES,
            max_retry_delay_seconds: DEFAULT_MAX_RETRY_DELAY_SECONDS,
            proxy: ProxySetting::System,
            proxy_password_set: false,
        }
    }
}

impl ConnectionSettings {
    /// The stored values, defaults where the file has none.
    pub fn from_file(file: &SettingsFile) -> ConnectionSettings {
        let defaults = ConnectionSettings::default();
        ConnectionSettings {
            idle_timeout_seconds: file
                .idle_timeout_seconds
                .unwrap_or(defaults.idle_timeout_seconds),
            head_timeout_seconds: file
                .head_timeout_seconds
                .unwrap_or(defaults.head_timeout_seconds),
            max_retries: file.max_retries.unwrap_or(defaults.max_retries),
            max_retry_delay_seconds: file
                .max_retry_delay_seconds
                .unwrap_or(defaults.max_retry_delay_seconds),
            proxy: file.proxy.clone().unwrap_or_default(),
            proxy_password_set: false,
        }
    }

    /// What requests use: these values as durations.
    pub fn options(&self) -> ConnectionOptions {
        ConnectionOptions {
            idle_timeout: Duration::from_secs(u64::from(self.idle_timeout_seconds)),
            head_timeout: Duration::from_secs(u64::from(self.head_timeout_seconds)),
            max_retries: self.max_retries,
            max_retry_delay: Duration::from_secs(u64::from(self.max_retry_delay_seconds)),
            proxy: self.proxy.choice(),
        }
    }

    /// The first value outside its range, said so the user can fix it; the proxy URL is checked by building a
    /// client with it (its password never appears in the text).
    pub fn validate(&self) -> Result<(), String> {
        for (name, value) in [
            ("The idle timeout", self.idle_timeout_seconds),
            ("The response head timeout", self.head_timeout_seconds),
        ] {
            if !TIMEOUT_RANGE.contains(&value) {
                return Err(format!(
                    "{name} must be between {} and {} seconds.",
                    TIMEOUT_RANGE.start(),
                    TIMEOUT_RANGE.end()
                ));
            }
        }
        if self.max_retries > MAX_RETRIES_LIMIT {
            return Err(format!(
                "At most {MAX_RETRIES_LIMIT} retries: more only keeps you waiting."
            ));
        }
        if let ProxySetting::Manual { url } = &self.proxy {
            if url.trim().is_empty() {
                return Err("Enter the proxy URL, or choose the system proxy or none.".to_owned());
            }
            crate::connection::http_client(&self.options()).map_err(|error| {
                format!(
                    "{}. Use a URL such as http://proxy.example:3128 or socks5h://127.0.0.1:1080.",
                    redact_credentials(&error.to_string())
                )
            })?;
        }
        Ok(())
    }
}

/// The connection settings as requests use them (tests shorten the timeouts below a second).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionOptions {
    /// Longest silence inside a streaming body.
    pub idle_timeout: Duration,
    /// Per attempt, until the response head arrives.
    pub head_timeout: Duration,
    /// Retries before any answer arrived.
    pub max_retries: u32,
    /// The longest server-requested wait honoured (zero = any).
    pub max_retry_delay: Duration,
    /// The proxy.
    pub proxy: ProxyChoice,
}

impl Default for ConnectionOptions {
    fn default() -> Self {
        ConnectionSettings::default().options()
    }
}

impl SettingsService {
    /// The stored connection settings (the defaults when there is no file); never the proxy's password.
    pub fn connection_settings(&self) -> Result<ConnectionSettings, SettingsServiceError> {
        let mut settings = ConnectionSettings::from_file(&self.load()?);
        settings.proxy_password_set = matches!(settings.proxy, ProxySetting::Manual { .. })
            && self.secret(PROXY_PASSWORD_SECRET)?.is_some();
        Ok(settings)
    }

    /// What requests use: the stored connection settings, a manual proxy's password put back from the key store.
    pub fn connection_options(&self) -> Result<ConnectionOptions, SettingsServiceError> {
        self.options_of(&ConnectionSettings::from_file(&self.load()?))
    }

    /// `settings`' options with the kept proxy password in the manual proxy's URL.
    pub(crate) fn options_of(
        &self,
        settings: &ConnectionSettings,
    ) -> Result<ConnectionOptions, SettingsServiceError> {
        let mut options = settings.options();
        if let ProxySetting::Manual { url } = &settings.proxy
            && let Some(password) = self.secret(PROXY_PASSWORD_SECRET)?
        {
            options.proxy = ProxyChoice::Manual(proxy_password::join(url, password.expose()));
        }
        Ok(options)
    }

    /// Checks and writes `settings` into the settings file (every other key stays) and returns what is stored
    /// now. Sessions take it when the caller applies the resolved settings to them.
    pub fn save_connection_settings(
        &self,
        settings: &ConnectionSettings,
    ) -> Result<ConnectionSettings, SettingsServiceError> {
        settings
            .validate()
            .map_err(|message| SettingsServiceError {
                kind: SettingsFailure::Invalid,
                message,
            })?;
        // The password goes to the key store before the file changes, so a keychain that fails leaves both as
        // they were; the file keeps the URL without it.
        let proxy = match &settings.proxy {
            ProxySetting::Manual { url } => {
                let split = proxy_password::split(url);
                match (&split.password, split.has_user) {
                    (Some(password), _) => self.store_secret(PROXY_PASSWORD_SECRET, password)?,
                    (None, true) => {}
                    (None, false) => self.delete_secret(PROXY_PASSWORD_SECRET)?,
                }
                ProxySetting::Manual { url: split.url }
            }
            other => {
                self.delete_secret(PROXY_PASSWORD_SECRET)?;
                other.clone()
            }
        };
        self.update_file(|file| {
            let defaults = ConnectionSettings::default();
            let stored = |value: u32, default: u32| (value != default).then_some(value);
            file.idle_timeout_seconds =
                stored(settings.idle_timeout_seconds, defaults.idle_timeout_seconds);
            file.head_timeout_seconds =
                stored(settings.head_timeout_seconds, defaults.head_timeout_seconds);
            file.max_retries = stored(settings.max_retries, defaults.max_retries);
            file.max_retry_delay_seconds = stored(
                settings.max_retry_delay_seconds,
                defaults.max_retry_delay_seconds,
            );
            file.proxy = match proxy {
                ProxySetting::System => None,
                kept => Some(kept),
            };
        })?;
        self.connection_settings()
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    /// No key store: these settings never touch keys.
    fn service(config_dir: &std::path::Path) -> SettingsService {
        crate::settings::file_update::service_without_keychain(config_dir)
    }

    #[test]
    fn the_defaults_are_stated_and_absent_from_the_file() {
        let folder = tempfile::tempdir().unwrap();
        let service = service(folder.path());
        assert_eq!(
            service.connection_settings().unwrap(),
            ConnectionSettings {
                idle_timeout_seconds: 120,
                head_timeout_seconds: 120,
                max_retries: 3,
                max_retry_delay_seconds: 60,
                proxy: ProxySetting::System,
                proxy_password_set: false,
            }
        );
        service
            .save_connection_settings(&ConnectionSettings::default())
            .unwrap();
        let saved = std::fs::read_to_string(folder.path().join("settings.json")).unwrap();
        assert_eq!(saved.trim(), "{}");
    }

    #[test]
    fn saved_values_come_back_and_other_keys_stay() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(
            folder.path().join("settings.json"),
            r#"{"provider":"ollama","theme":"dark"}"#,
        )
        .unwrap();
        let service = service(folder.path());
        let wanted = ConnectionSettings {
            idle_timeout_seconds: 30,
            head_timeout_seconds: 90,
            max_retries: 0,
            max_retry_delay_seconds: 0,
            proxy: ProxySetting::Manual {
                url: " socks5h://127.0.0.1:1080 ".into(),
            },
            proxy_password_set: false,
        };
        let saved = service.save_connection_settings(&wanted).unwrap();
        assert_eq!(
            saved.proxy,
            ProxySetting::Manual {
                url: "socks5h://127.0.0.1:1080".into()
            }
        );
        assert_eq!(saved.idle_timeout_seconds, 30);
        let file: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(folder.path().join("settings.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            file,
            serde_json::json!({
                "provider": "ollama",
                "theme": "dark",
                "idleTimeoutSeconds": 30,
                "headTimeoutSeconds": 90,
                "maxRetries": 0,
                "maxRetryDelaySeconds": 0,
                "proxy": {"mode": "manual", "url": "socks5h://127.0.0.1:1080"},
            })
        );
        let options = saved.options();
        assert_eq!(options.idle_timeout, Duration::from_secs(30));
        assert_eq!(
            options.proxy,
            ProxyChoice::Manual("socks5h://127.0.0.1:1080".into())
        );
    }

    #[test]
    fn out_of_range_values_and_bad_proxies_are_refused_without_the_password() {
        let folder = tempfile::tempdir().unwrap();
        let service = service(folder.path());
        for (settings, needle) in [
            (
                ConnectionSettings {
                    idle_timeout_seconds: 1,
                    ..ConnectionSettings::default()
                },
                "idle timeout",
            ),
            (
                ConnectionSettings {
                    head_timeout_seconds: 7_200,
                    ..ConnectionSettings::default()
                },
                "head timeout",
            ),
            (
                ConnectionSettings {
                    max_retries: 50,
                    ..ConnectionSettings::default()
                },
                "retries",
            ),
            (
                ConnectionSettings {
                    proxy: ProxySetting::Manual { url: "  ".into() },
                    ..ConnectionSettings::default()
                },
                "proxy URL",
            ),
            (
                ConnectionSettings {
                    proxy: ProxySetting::Manual {
                        url: "ftp://me:hunter2@proxy.example".into(),
                    },
                    ..ConnectionSettings::default()
                },
                "socks5h://",
            ),
        ] {
            let error = service.save_connection_settings(&settings).unwrap_err();
            assert_eq!(error.kind, SettingsFailure::Invalid, "{}", error.message);
            assert!(error.message.contains(needle), "{}", error.message);
            assert!(!error.message.contains("hunter2"), "{}", error.message);
        }
        assert!(!folder.path().join("settings.json").exists());
    }
}
