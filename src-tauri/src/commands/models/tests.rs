//! The connection and model commands as the window calls them: the real config and capabilities on Tauri's mock
//! runtime, a temporary config folder, and a real HTTP server on loopback for the model list.

use crate::test_window::{call, main_window};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;

use desktop_host::desktop_paths::DesktopPaths;
use desktop_host::model_list::ModelLists;
use desktop_host::secrets::{FallbackOffer, KeyStoreSetup, KeychainUnavailable};
use desktop_host::session::SessionOptions;
use desktop_host::settings::{
    NoKeySource, ResolveInputs, SettingsFile, SettingsService, TcpProbe, resolve_settings,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tauri::App;
use tauri::test::{MockRuntime, mock_builder};

struct TestApp {
    app: App<MockRuntime>,
    home: tempfile::TempDir,
    _data: tempfile::TempDir,
}

impl TestApp {
    fn config_dir(&self) -> std::path::PathBuf {
        self.home.path().join(".config/pi-desktop")
    }
}

fn test_app() -> TestApp {
    let home = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let home_path = home.path().to_path_buf();
    let factory: crate::SessionFactory = Arc::new(move || {
        let env: HashMap<String, String> = [("PI_API".to_owned(), "scripted".to_owned())].into();
        let settings = resolve_settings(&ResolveInputs {
            file: &SettingsFile::default(),
            env: &env,
            key_env_override: None,
            key_source: &NoKeySource,
            probe: &TcpProbe::default(),
            settings_path: None,
        })
        .unwrap();
        let paths = DesktopPaths::from_folders(home_path.clone(), None, HashMap::new());
        Ok(SessionOptions::new(settings, paths))
    });
    let conversations = crate::host::open_conversations(
        data.path().to_path_buf(),
        home.path().to_path_buf(),
        factory,
    )
    .unwrap();
    let config_dir = home.path().join(".config/pi-desktop");
    // No key store: these providers take no key.
    let settings = SettingsService::new(
        Some(config_dir.clone()),
        Box::new(|dir: &Path| {
            KeyStoreSetup::NeedsFallbackConsent(FallbackOffer {
                keychain_unavailable: KeychainUnavailable {
                    reason: "not in tests".to_owned(),
                },
                file: dir.join("api-keys.json"),
            })
        }),
    );
    let app = crate::configure(mock_builder())
        .manage(conversations)
        .manage(ModelLists::new(Some(&config_dir)))
        .manage(settings)
        .build(tauri::generate_context!())
        .unwrap();
    TestApp {
        app,
        home,
        _data: data,
    }
}

/// A one-request HTTP server on loopback answering `GET /v1/models` with `body`; returns its base URL.
fn models_server(body: Value) -> (String, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    let serving = std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        let mut request = Vec::new();
        let mut chunk = [0u8; 1024];
        while !request.windows(4).any(|window| window == b"\r\n\r\n") {
            let read = socket.read(&mut chunk).unwrap();
            assert!(
                read > 0,
                "the client closed before its request was complete"
            );
            request.extend_from_slice(&chunk[..read]);
        }
        let body = body.to_string();
        write!(
            socket,
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        String::from_utf8_lossy(&request).into_owned()
    });
    (base_url, serving)
}

#[test]
fn connection_settings_start_at_the_stated_defaults_and_refuse_bad_values() {
    let test_app = test_app();
    let window = main_window(&test_app.app);
    let defaults = call(&window, "connection_settings", json!({})).unwrap();
    assert_eq!(
        defaults,
        json!({"idleTimeoutSeconds": 120, "headTimeoutSeconds": 120, "maxRetries": 3,
               "maxRetryDelaySeconds": 60, "proxy": {"mode": "system"}, "proxyPasswordSet": false})
    );
    let mut manual = defaults.clone();
    manual["proxy"] = json!({"mode": "manual", "url": "socks5h://127.0.0.1:1080"});
    manual["idleTimeoutSeconds"] = json!(45);
    let saved = call(
        &window,
        "save_connection_settings",
        json!({"settings": manual}),
    )
    .unwrap();
    assert_eq!(saved, manual);
    assert_eq!(
        call(&window, "connection_settings", json!({})).unwrap(),
        manual
    );

    let mut bad = defaults;
    bad["proxy"] = json!({"mode": "manual", "url": "ftp://me:hunter2@proxy"});
    let error = call(
        &window,
        "save_connection_settings",
        json!({"settings": bad}),
    )
    .unwrap_err();
    assert_eq!(error["kind"], "invalid", "{error}");
    assert_eq!(error["code"], "invalid_value", "{error}");
    assert!(
        !error["detail"].as_str().unwrap().contains("hunter2"),
        "{error}"
    );
}

#[test]
fn test_connection_lists_the_models_and_the_picker_then_has_them() {
    let test_app = test_app();
    let window = main_window(&test_app.app);
    let (base_url, serving) =
        models_server(json!({"data": [{"id": "gpt-4o-mini"}, {"id": "local-7b"}]}));
    let report = call(
        &window,
        "test_connection",
        json!({"input": {"preset": "llamacpp", "api": "", "baseUrl": base_url, "apiKey": ""}}),
    )
    .unwrap();
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["route"], "direct");
    assert_eq!(report["models"][0]["id"], "gpt-4o-mini");
    assert_eq!(report["models"][0]["facts"], "table");
    assert_eq!(report["models"][1]["facts"], "default");
    let request = serving.join().unwrap();
    assert!(request.starts_with("GET /v1/models HTTP/1.1"), "{request}");

    // The saved provider is the one just tested: its list comes from the cache, no second request.
    std::fs::create_dir_all(test_app.config_dir()).unwrap();
    std::fs::write(
        test_app.config_dir().join("settings.json"),
        json!({"provider": "llamacpp", "baseUrl": base_url}).to_string(),
    )
    .unwrap();
    let view = call(&window, "list_models", json!({"refresh": false})).unwrap();
    assert_eq!(view["origin"], "cache", "{view}");
    assert_eq!(view["models"].as_array().unwrap().len(), 2);
}

#[test]
fn a_test_of_nothing_listening_says_refused_and_a_bad_form_is_invalid() {
    let test_app = test_app();
    let window = main_window(&test_app.app);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    let report = call(
        &window,
        "test_connection",
        json!({"input": {"preset": "ollama", "api": "", "baseUrl": base_url, "apiKey": ""}}),
    )
    .unwrap();
    assert_eq!(report["ok"], false);
    assert_eq!(report["problem"]["kind"], "refused", "{report}");

    let error = call(
        &window,
        "test_connection",
        json!({"input": {"preset": "carrier-pigeon", "api": "", "baseUrl": "", "apiKey": ""}}),
    )
    .unwrap_err();
    assert_eq!(error["kind"], "invalid", "{error}");
}

#[test]
fn a_typed_model_id_gets_its_figures() {
    let test_app = test_app();
    let window = main_window(&test_app.app);
    let entry = call(
        &window,
        "describe_model",
        json!({"modelId": " anthropic/claude-sonnet-4.5 "}),
    )
    .unwrap();
    assert_eq!(entry["id"], "anthropic/claude-sonnet-4.5");
    assert_eq!(entry["contextWindow"], 200_000);
    assert_eq!(entry["imageInput"], true);
    assert_eq!(entry["pricing"]["input"], 3.0);
    assert_eq!(entry["factsAsOf"], "2025-11");
}

#[test]
fn provider_status_says_usable_with_the_model_or_what_is_missing() {
    let test_app = test_app();
    let window = main_window(&test_app.app);
    std::fs::create_dir_all(test_app.config_dir()).unwrap();
    let settings_file = test_app.config_dir().join("settings.json");

    std::fs::write(
        &settings_file,
        json!({"provider": "llamacpp", "baseUrl": "http://127.0.0.1:9/v1", "model": "house-model"})
            .to_string(),
    )
    .unwrap();
    assert_eq!(
        call(&window, "provider_status", json!({})).unwrap(),
        json!({"status": "usable", "provider": "llama.cpp", "model": "house-model"})
    );

    std::fs::write(&settings_file, json!({"provider": "deepseek"}).to_string()).unwrap();
    let status = call(&window, "provider_status", json!({})).unwrap();
    assert_eq!(status["status"], "unusable", "{status}");
    assert!(
        status["message"]
            .as_str()
            .unwrap()
            .contains("DEEPSEEK_API_KEY"),
        "{status}"
    );
}

#[test]
fn a_conversations_model_is_stored_and_its_session_uses_it_from_the_next_turn() {
    let test_app = test_app();
    let window = main_window(&test_app.app);
    std::fs::create_dir_all(test_app.config_dir()).unwrap();
    std::fs::write(
        test_app.config_dir().join("settings.json"),
        json!({"provider": "llamacpp", "baseUrl": "http://127.0.0.1:9/v1"}).to_string(),
    )
    .unwrap();
    let state = call(&window, "get_state", json!({})).unwrap();
    let conversation_id = state["conversationId"].as_str().unwrap().to_owned();

    let chosen = call(
        &window,
        "set_conversation_model",
        json!({"conversationId": conversation_id, "model": " house-model "}),
    )
    .unwrap();
    assert_eq!(chosen, Value::Null);

    let state = call(&window, "get_state", json!({})).unwrap();
    assert_eq!(state["model"]["id"], "house-model", "{state}");
    let list = call(&window, "list_conversations", json!({})).unwrap();
    let stored: Vec<&Value> = list["days"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|day| day["conversations"].as_array().unwrap())
        .filter(|conversation| conversation["id"] == conversation_id)
        .collect();
    assert_eq!(stored.len(), 1, "{list}");
    assert_eq!(stored[0]["model"], "house-model");

    // Saved settings that keep the provider leave the conversation on its model; another provider does not.
    let input = |preset: &str, base_url: &str| {
        json!({"settings": {"preset": preset, "api": "", "baseUrl": base_url, "model": "",
                            "thinkingLevel": "", "systemPrompt": "", "language": "en"}})
    };
    call(
        &window,
        "save_settings",
        input("llamacpp", "http://127.0.0.1:9/v1"),
    )
    .unwrap();
    let state = call(&window, "get_state", json!({})).unwrap();
    assert_eq!(state["model"]["id"], "house-model", "{state}");
    call(
        &window,
        "save_settings",
        input("ollama", "http://127.0.0.1:9/v1"),
    )
    .unwrap();
    let state = call(&window, "get_state", json!({})).unwrap();
    assert_eq!(state["model"]["provider"], "ollama", "{state}");
    assert_eq!(state["model"]["id"], "llama3.2", "{state}");
    let list = call(&window, "list_conversations", json!({})).unwrap();
    assert!(
        list.to_string().contains(r#""model":"llama3.2""#),
        "the model in use is the one stored: {list}"
    );

    let blank = call(
        &window,
        "set_conversation_model",
        json!({"conversationId": conversation_id, "model": "  "}),
    )
    .unwrap_err();
    assert_eq!(blank["kind"], "invalid", "{blank}");
}

#[test]
fn ollama_is_looked_for_where_ollama_host_says_else_at_its_default_address() {
    let env = |value: &str| -> HashMap<String, String> {
        [("OLLAMA_HOST".to_owned(), value.to_owned())].into()
    };
    assert_eq!(
        super::ollama_base_url(&HashMap::new()),
        "http://127.0.0.1:11434/v1"
    );
    assert_eq!(
        super::ollama_base_url(&env("127.0.0.1:5000")),
        "http://127.0.0.1:5000/v1"
    );
    assert_eq!(
        super::ollama_base_url(&env("http://box.local:11434/")),
        "http://box.local:11434/v1"
    );
    assert_eq!(
        super::ollama_base_url(&env("  ")),
        "http://127.0.0.1:11434/v1"
    );
}
