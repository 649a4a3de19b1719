//! The settings service over a temporary config folder and an in-memory key store (or none at all).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::secrets::{
    ApiKeys, FallbackOffer, KeyStorage, KeyStoreSetup, KeychainUnavailable, SecretBackend,
    SecretsError,
};
use crate::settings::ApiKey;
use pretty_assertions::assert_eq;

use super::{KeyStorageView, SettingsFailure, SettingsInput, SettingsService};

/// Keys in a shared map, so a test can look at what was stored.
#[derive(Debug, Clone, Default)]
struct MemoryBackend {
    keys: Arc<Mutex<HashMap<String, String>>>,
}

impl SecretBackend for MemoryBackend {
    fn storage(&self) -> KeyStorage {
        KeyStorage::Keychain {
            service: "test".to_owned(),
        }
    }
    fn read(&self, provider: &str) -> Result<Option<ApiKey>, SecretsError> {
        Ok(self.keys.lock().unwrap().get(provider).map(ApiKey::new))
    }
    fn write(&self, provider: &str, key: &ApiKey) -> Result<(), SecretsError> {
        self.keys
            .lock()
            .unwrap()
            .insert(provider.to_owned(), key.expose().to_owned());
        Ok(())
    }
    fn remove(&self, provider: &str) -> Result<bool, SecretsError> {
        Ok(self.keys.lock().unwrap().remove(provider).is_some())
    }
}

fn with_keychain(config_dir: &Path) -> (SettingsService, MemoryBackend) {
    let backend = MemoryBackend::default();
    let shared = backend.clone();
    let service = SettingsService::new(
        Some(config_dir.to_path_buf()),
        Box::new(move |_dir: &Path| KeyStoreSetup::Ready(ApiKeys::new(Box::new(shared.clone())))),
    );
    (service, backend)
}

fn without_keychain(config_dir: &Path) -> SettingsService {
    SettingsService::new(
        Some(config_dir.to_path_buf()),
        Box::new(|dir: &Path| {
            KeyStoreSetup::NeedsFallbackConsent(FallbackOffer {
                keychain_unavailable: KeychainUnavailable {
                    reason: "no Secret Service on the session bus".to_owned(),
                },
                file: dir.join("api-keys.json"),
            })
        }),
    )
}

fn openai_input() -> SettingsInput {
    SettingsInput {
        preset: "openai".to_owned(),
        api: String::new(),
        base_url: String::new(),
        model: "gpt-4.1".to_owned(),
        thinking_level: "low".to_owned(),
        system_prompt: String::new(),
        language: "zh".to_owned(),
        theme: "dark".to_owned(),
        send_key: "ctrlEnter".to_owned(),
        notifications: true,
        close_to_tray: false,
        start_minimized: false,
        quick_ask_shortcut: String::new(),
    }
}

#[test]
fn a_fresh_config_folder_shows_no_preset_no_key_and_every_preset() {
    let config = tempfile::tempdir().unwrap();
    let (service, _backend) = with_keychain(config.path());

    let view = service.view().unwrap();

    assert_eq!(view.settings.preset, "");
    assert_eq!(view.settings.thinking_level, "off");
    assert_eq!(view.settings.language, "auto");
    assert_eq!(view.settings.theme, "system");
    assert_eq!(view.settings.send_key, "enter");
    assert!(!view.api_key_set);
    let ids: Vec<&str> = view.presets.iter().map(|preset| preset.id).collect();
    assert_eq!(
        ids,
        vec![
            "openai",
            "anthropic",
            "deepseek",
            "openrouter",
            "qwen",
            "ollama",
            "llamacpp",
            "custom"
        ]
    );
    assert!(!view.presets.iter().any(|p| p.id == "ollama" && p.needs_key));
    assert!(view.presets.iter().any(|p| p.id == "custom" && p.needs_key));
    assert!(view.keys_stored.is_empty());
}

#[test]
fn saved_settings_come_back_with_the_preset_defaults_and_keep_unknown_keys() {
    let config = tempfile::tempdir().unwrap();
    std::fs::write(
        config.path().join("settings.json"),
        r#"{"windowWidth": 900}"#,
    )
    .unwrap();
    let (service, _backend) = with_keychain(config.path());

    let view = service.save(&openai_input()).unwrap();

    assert_eq!(view.settings.preset, "openai");
    assert_eq!(view.settings.api, "openai-responses");
    assert_eq!(view.settings.base_url, "https://api.openai.com/v1");
    assert_eq!(view.settings.model, "gpt-4.1");
    assert_eq!(view.settings.thinking_level, "low");
    assert_eq!(view.settings.language, "zh");
    assert_eq!(view.settings.theme, "dark");
    assert_eq!(view.settings.send_key, "ctrlEnter");
    let stored = std::fs::read_to_string(config.path().join("settings.json")).unwrap();
    assert!(stored.contains("windowWidth"), "{stored}");
}

#[test]
fn an_unknown_preset_or_level_is_refused_as_invalid() {
    let config = tempfile::tempdir().unwrap();
    let (service, _backend) = with_keychain(config.path());

    let bad_preset = SettingsInput {
        preset: "acme".to_owned(),
        ..openai_input()
    };
    let bad_level = SettingsInput {
        thinking_level: "extreme".to_owned(),
        ..openai_input()
    };
    let bad_theme = SettingsInput {
        theme: "sepia".to_owned(),
        ..openai_input()
    };
    let bad_send_key = SettingsInput {
        send_key: "space".to_owned(),
        ..openai_input()
    };

    assert_eq!(
        service.save(&bad_preset).unwrap_err().kind,
        SettingsFailure::Invalid
    );
    assert_eq!(
        service.save(&bad_level).unwrap_err().kind,
        SettingsFailure::Invalid
    );
    let theme_error = service.save(&bad_theme).unwrap_err();
    assert_eq!(theme_error.kind, SettingsFailure::Invalid);
    assert_eq!(
        theme_error.message,
        "Unknown theme \"sepia\": use system, light or dark."
    );
    assert_eq!(
        service.save(&bad_send_key).unwrap_err().kind,
        SettingsFailure::Invalid
    );
    assert!(!config.path().join("settings.json").exists());
}

#[test]
fn a_key_is_stored_for_the_presets_provider_and_never_shown() {
    let config = tempfile::tempdir().unwrap();
    let (service, backend) = with_keychain(config.path());
    service.save(&openai_input()).unwrap();

    let view = service.set_api_key("", "  sk-test-secret  ").unwrap();

    assert!(view.api_key_set);
    assert_eq!(
        backend
            .keys
            .lock()
            .unwrap()
            .get("openai")
            .map(String::as_str),
        Some("sk-test-secret")
    );
    let shown = serde_json::to_string(&view).unwrap();
    assert!(!shown.contains("sk-test-secret"), "{shown}");
    let deleted = service.delete_api_key("").unwrap();
    assert!(!deleted.api_key_set);
    assert!(backend.keys.lock().unwrap().is_empty());
}

#[test]
fn a_key_goes_to_the_provider_the_form_names_not_the_one_saved_before() {
    let config = tempfile::tempdir().unwrap();
    let (service, backend) = with_keychain(config.path());
    service.save(&openai_input()).unwrap();

    let view = service
        .set_api_key("deepseek", "sk-deepseek-secret")
        .unwrap();

    assert!(
        !view.api_key_set,
        "the saved preset (OpenAI) still has no key"
    );
    assert_eq!(view.keys_stored, vec!["deepseek"]);
    assert_eq!(
        backend
            .keys
            .lock()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>(),
        vec!["deepseek".to_owned()]
    );
    let custom = service.set_api_key("custom", "sk-custom-secret").unwrap();
    assert_eq!(custom.keys_stored, vec!["deepseek", "custom"]);
    let deleted = service.delete_api_key("deepseek").unwrap();
    assert_eq!(deleted.keys_stored, vec!["custom"]);
    let shown = serde_json::to_string(&deleted).unwrap();
    assert!(!shown.contains("secret"), "{shown}");
}

#[test]
fn a_key_for_a_local_preset_or_an_unknown_one_is_refused_as_invalid() {
    let config = tempfile::tempdir().unwrap();
    let (service, backend) = with_keychain(config.path());

    for preset in ["ollama", "llamacpp", "nonsense"] {
        let error = service.set_api_key(preset, "sk-test-secret").unwrap_err();
        assert_eq!(error.kind, SettingsFailure::Invalid, "{preset}");
        assert!(!error.message.contains("sk-test-secret"));
    }
    assert!(backend.keys.lock().unwrap().is_empty());
}

#[test]
fn without_a_keychain_a_key_is_refused_with_a_keychain_error_and_no_file_is_written() {
    let config = tempfile::tempdir().unwrap();
    let service = without_keychain(config.path());
    service.save(&openai_input()).unwrap();

    let error = service.set_api_key("", "sk-test-secret").unwrap_err();

    assert_eq!(error.kind, SettingsFailure::Keychain);
    assert!(
        error.message.contains("no Secret Service"),
        "{}",
        error.message
    );
    assert!(!error.message.contains("sk-test-secret"));
    assert!(!config.path().join("api-keys.json").exists());
    assert!(!service.view().unwrap().api_key_set);
}

#[test]
fn a_key_without_a_preset_that_takes_one_is_refused_as_invalid() {
    let config = tempfile::tempdir().unwrap();
    let (service, backend) = with_keychain(config.path());

    let error = service.set_api_key("", "sk-test-secret").unwrap_err();

    assert_eq!(error.kind, SettingsFailure::Invalid);
    assert!(backend.keys.lock().unwrap().is_empty());
}

#[test]
fn without_a_keychain_the_view_says_unavailable_and_nothing_is_written() {
    let config = tempfile::tempdir().unwrap();
    let service = without_keychain(config.path());

    let view = service.view().unwrap();

    assert_eq!(view.key_storage, KeyStorageView::Unavailable);
    assert!(!config.path().join("api-keys.json").exists());
}

#[test]
fn with_a_keychain_the_view_says_keychain() {
    let config = tempfile::tempdir().unwrap();
    let (service, _backend) = with_keychain(config.path());

    assert_eq!(
        service.view().unwrap().key_storage,
        KeyStorageView::Keychain
    );
}

#[cfg(unix)]
#[test]
fn after_consent_keys_go_to_a_private_file_and_never_into_a_result() {
    use std::os::unix::fs::PermissionsExt;

    let config = tempfile::tempdir().unwrap();
    let service = without_keychain(config.path());
    service.save(&openai_input()).unwrap();
    let refused = service.set_api_key("", "sk-test-secret").unwrap_err();
    assert_eq!(refused.kind, SettingsFailure::Keychain);

    let accepted = service.accept_key_file_fallback().unwrap();
    assert_eq!(accepted.key_storage, KeyStorageView::File);
    assert!(!accepted.api_key_set);
    let view = service.set_api_key("", "sk-test-secret").unwrap();

    assert!(view.api_key_set);
    assert_eq!(view.key_storage, KeyStorageView::File);
    let file = config.path().join("api-keys.json");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let stored = std::fs::read_to_string(&file).unwrap();
    assert!(stored.contains("sk-test-secret"));
    for shown in [
        serde_json::to_string(&accepted).unwrap(),
        serde_json::to_string(&view).unwrap(),
        refused.message,
    ] {
        assert!(!shown.contains("sk-test-secret"), "{shown}");
    }
    let again = service.accept_key_file_fallback().unwrap();
    assert!(again.api_key_set, "a second consent keeps the stored key");
}

#[test]
fn a_manual_proxy_password_is_kept_in_the_key_store_and_put_back_only_for_requests() {
    use crate::settings::{ConnectionSettings, ProxySetting};
    use pi_ai::providers::ProxyChoice;

    let folder = tempfile::tempdir().unwrap();
    std::fs::write(
        folder.path().join("settings.json"),
        r#"{"provider":"ollama"}"#,
    )
    .unwrap();
    let (service, backend) = with_keychain(folder.path());
    let manual = |url: &str| ConnectionSettings {
        proxy: ProxySetting::Manual {
            url: url.to_owned(),
        },
        ..ConnectionSettings::default()
    };

    let saved = service
        .save_connection_settings(&manual("http://alice:hunter2@proxy.corp:3128"))
        .unwrap();
    assert_eq!(
        saved.proxy,
        ProxySetting::Manual {
            url: "http://alice@proxy.corp:3128/".to_owned()
        }
    );
    assert!(saved.proxy_password_set);
    let file = std::fs::read_to_string(folder.path().join("settings.json")).unwrap();
    assert!(!file.contains("hunter2"), "{file}");
    assert_eq!(
        backend
            .keys
            .lock()
            .unwrap()
            .get("proxy-password")
            .map(String::as_str),
        Some("hunter2")
    );
    let with_password = ProxyChoice::Manual("http://alice:hunter2@proxy.corp:3128/".to_owned());
    assert_eq!(service.connection_options().unwrap().proxy, with_password);
    assert_eq!(
        service
            .resolve(&HashMap::new(), None)
            .unwrap()
            .connection
            .proxy,
        with_password
    );

    // The URL as shown (the user alone) keeps the password; a URL without a user, or no manual proxy, drops it.
    let again = service
        .save_connection_settings(&manual("http://alice@proxy.corp:3128/"))
        .unwrap();
    assert!(again.proxy_password_set);
    assert_eq!(service.connection_options().unwrap().proxy, with_password);
    let anonymous = service
        .save_connection_settings(&manual("http://proxy.corp:3128"))
        .unwrap();
    assert!(!anonymous.proxy_password_set);
    assert!(backend.keys.lock().unwrap().get("proxy-password").is_none());
}

#[test]
fn a_proxy_password_is_refused_rather_than_written_in_plain_text_without_a_key_store() {
    use crate::settings::{ConnectionSettings, ProxySetting};

    let folder = tempfile::tempdir().unwrap();
    let service = without_keychain(folder.path());
    let error = service
        .save_connection_settings(&ConnectionSettings {
            proxy: ProxySetting::Manual {
                url: "http://alice:hunter2@proxy.corp:3128".to_owned(),
            },
            ..ConnectionSettings::default()
        })
        .unwrap_err();
    assert_eq!(error.kind, SettingsFailure::Keychain);
    assert!(!error.message.contains("hunter2"), "{}", error.message);
    assert!(!folder.path().join("settings.json").exists());
}

#[test]
fn the_default_theme_and_send_key_are_stored_as_absent_keys() {
    let config = tempfile::tempdir().unwrap();
    let (service, _backend) = with_keychain(config.path());
    service.save(&openai_input()).unwrap();
    let stored: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(config.path().join("settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(stored["theme"], "dark");
    assert_eq!(stored["sendKey"], "ctrlEnter");

    let view = service
        .save(&SettingsInput {
            theme: "system".to_owned(),
            send_key: "enter".to_owned(),
            ..openai_input()
        })
        .unwrap();

    assert_eq!(view.settings.theme, "system");
    assert_eq!(view.settings.send_key, "enter");
    let stored: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(config.path().join("settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(stored.get("theme"), None);
    assert_eq!(stored.get("sendKey"), None);
}

#[test]
fn an_input_without_theme_or_send_key_takes_the_defaults() {
    let input: SettingsInput = serde_json::from_value(serde_json::json!({
        "preset": "openai", "api": "", "baseUrl": "", "model": "", "thinkingLevel": "",
        "systemPrompt": "", "language": "en"
    }))
    .unwrap();
    let config = tempfile::tempdir().unwrap();
    let (service, _backend) = with_keychain(config.path());

    let view = service.save(&input).unwrap();

    assert_eq!(view.settings.theme, "system");
    assert_eq!(view.settings.send_key, "enter");
    assert!(
        view.settings.notifications,
        "notifications are on by default"
    );
}

#[test]
fn notifications_turned_off_are_stored_as_false_and_turned_on_again_as_absent() {
    let config = tempfile::tempdir().unwrap();
    let (service, _backend) = with_keychain(config.path());
    let stored = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(config.path().join("settings.json")).unwrap())
            .unwrap()
    };

    let view = service
        .save(&SettingsInput {
            notifications: false,
            ..openai_input()
        })
        .unwrap();
    assert!(!view.settings.notifications);
    assert_eq!(stored()["notifications"], false);
    assert!(!service.view().unwrap().settings.notifications);

    let view = service.save(&openai_input()).unwrap();
    assert!(view.settings.notifications);
    assert_eq!(stored().get("notifications"), None);
}

#[test]
fn close_to_tray_and_start_minimized_are_off_by_default_and_stored_only_when_on() {
    let config = tempfile::tempdir().unwrap();
    let (service, _backend) = with_keychain(config.path());
    let stored = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(config.path().join("settings.json")).unwrap())
            .unwrap()
    };

    let view = service.save(&openai_input()).unwrap();
    assert!(!view.settings.close_to_tray);
    assert_eq!(stored().get("closeToTray"), None);

    assert_eq!(stored().get("startMinimized"), None);

    let view = service
        .save(&SettingsInput {
            close_to_tray: true,
            start_minimized: true,
            ..openai_input()
        })
        .unwrap();
    assert!(view.settings.close_to_tray);
    assert!(view.settings.start_minimized);
    assert_eq!(stored()["closeToTray"], true);
    assert_eq!(stored()["startMinimized"], true);
}

#[test]
fn the_quick_ask_shortcut_is_stored_trimmed_and_a_blank_one_means_the_default() {
    let config = tempfile::tempdir().unwrap();
    let (service, _backend) = with_keychain(config.path());
    let stored = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(config.path().join("settings.json")).unwrap())
            .unwrap()
    };

    let view = service
        .save(&SettingsInput {
            quick_ask_shortcut: " Ctrl+Shift+K ".to_owned(),
            ..openai_input()
        })
        .unwrap();
    assert_eq!(view.settings.quick_ask_shortcut, "Ctrl+Shift+K");
    assert_eq!(stored()["quickAskShortcut"], "Ctrl+Shift+K");

    let view = service.save(&openai_input()).unwrap();
    assert_eq!(view.settings.quick_ask_shortcut, "");
    assert_eq!(stored().get("quickAskShortcut"), None);
}
