//! The IPC surface as the window sees it: the real config and capabilities on Tauri's mock runtime, and the run
//! commands against desktop-host's scripted model with the window's event stream on a capturing `Channel`.

use crate::test_window::invoke;
use crate::test_window::{call, main_window};
use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use desktop_host::approval::ApprovalDecision;
use desktop_host::conversations::Conversations;
use desktop_host::desktop_paths::DesktopPaths;
use desktop_host::session::SessionOptions;
use desktop_host::settings::{
    NoKeySource, ResolveInputs, SettingsFile, TcpProbe, resolve_settings,
};
use desktop_host::wire::LeanEnvelope;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tauri::ipc::{Channel, InvokeResponseBody};
use tauri::test::{MockRuntime, mock_builder};
use tauri::{App, Manager as _, WebviewUrl, WebviewWindowBuilder};

use crate::command_error::{CommandError, ErrorCode, ErrorKind};
use crate::commands;

/// A scripted (offline, deterministic) model, a temporary home and a temporary app data folder.
struct TestApp {
    app: App<MockRuntime>,
    _home: tempfile::TempDir,
    _data: tempfile::TempDir,
}

fn scripted_app() -> TestApp {
    scripted_app_with(|_options| {})
}

/// [`scripted_app`] with every session's options changed by `adjust`.
fn scripted_app_with(adjust: fn(&mut SessionOptions)) -> TestApp {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("Downloads")).unwrap();
    let home_path = home.path().to_path_buf();
    let data = tempfile::tempdir().unwrap();
    let factory: crate::SessionFactory = Arc::new(move || {
        let env: HashMap<String, String> = [("PI_API".to_owned(), "scripted".to_owned())]
            .into_iter()
            .collect();
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
        let mut options = SessionOptions::new(settings, paths);
        adjust(&mut options);
        Ok(options)
    });
    let conversations = crate::host::open_conversations(
        data.path().to_path_buf(),
        home.path().join("Downloads"),
        factory,
    )
    .unwrap();
    // No key store: these tests use the scripted model, which takes no key.
    let settings = desktop_host::settings::SettingsService::new(
        Some(home.path().join(".config/pi-desktop")),
        Box::new(|dir: &std::path::Path| {
            desktop_host::secrets::KeyStoreSetup::NeedsFallbackConsent(
                desktop_host::secrets::FallbackOffer {
                    keychain_unavailable: desktop_host::secrets::KeychainUnavailable {
                        reason: "not in tests".to_owned(),
                    },
                    file: dir.join("api-keys.json"),
                },
            )
        }),
    );
    let app = crate::configure(mock_builder())
        .manage(conversations)
        .manage(std::sync::Arc::new(desktop_host::mcp::McpServers::load(
            None,
            std::sync::Arc::new(desktop_host::mcp::NoSecrets),
        )))
        .manage(settings)
        .build(tauri::generate_context!())
        .unwrap();
    TestApp {
        app,
        _home: home,
        _data: data,
    }
}

fn body_json(body: InvokeResponseBody) -> Value {
    match body {
        InvokeResponseBody::Json(json) => serde_json::from_str(&json).unwrap(),
        InvokeResponseBody::Raw(bytes) => serde_json::from_slice(&bytes).unwrap(),
    }
}

/// Every envelope a subscribed Channel was sent, as JSON.
#[derive(Default)]
struct Captured {
    seen: Mutex<Vec<Value>>,
    arrived: Condvar,
}

impl Captured {
    /// Waits (at most 30 s) until an envelope matches `predicate`; returns everything seen until then.
    fn wait_for(&self, predicate: impl Fn(&Value) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut seen = self.seen.lock().unwrap();
        loop {
            if let Some(found) = seen.iter().position(&predicate) {
                return seen[..=found].to_vec();
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no such envelope came: {seen:?}");
            seen = self.arrived.wait_timeout(seen, left).unwrap().0;
        }
    }

    /// Waits for run `accepted`'s `idle`; returns everything seen until then.
    fn wait_for_idle(&self, accepted: &Value) -> Vec<Value> {
        self.wait_for(|envelope| {
            envelope["runId"] == accepted["runId"] && envelope["notice"]["type"] == "idle"
        })
    }

    fn all(&self) -> Vec<Value> {
        self.seen.lock().unwrap().clone()
    }
}

/// A Channel that keeps every envelope it is sent, as JSON.
fn capturing_channel() -> (Channel<LeanEnvelope>, Arc<Captured>) {
    let captured = Arc::new(Captured::default());
    let sink = Arc::clone(&captured);
    let channel = Channel::new(move |body| {
        sink.seen.lock().unwrap().push(body_json(body));
        sink.arrived.notify_all();
        Ok(())
    });
    (channel, captured)
}

/// Subscribes the main window's event stream to a capturing Channel; returns the snapshot and the capture.
fn subscribe(app: &App<MockRuntime>) -> (Value, Arc<Captured>) {
    subscribe_with(app, None)
}

/// [`subscribe`], asking for the lean stream or not.
fn subscribe_with(app: &App<MockRuntime>, lean: Option<bool>) -> (Value, Arc<Captured>) {
    let (channel, captured) = capturing_channel();
    let window = app
        .get_webview_window("main")
        .unwrap_or_else(|| main_window(app));
    let snapshot = tauri::async_runtime::block_on(commands::stream::subscribe(
        window,
        app.state::<Conversations>(),
        channel,
        lean,
    ))
    .unwrap();
    (serde_json::to_value(snapshot).unwrap(), captured)
}

/// Sends a prompt; resolves with the accepted run (`{conversationId, runId}`) as the window gets it.
fn prompt(app: &App<MockRuntime>, text: &str) -> Result<Value, CommandError> {
    tauri::async_runtime::block_on(commands::run::prompt(
        app.state::<Conversations>(),
        text.to_owned(),
        None,
        None,
    ))
    .map(|accepted| serde_json::to_value(accepted).unwrap())
}

#[test]
fn app_info_reports_the_product_name_version_log_folder_and_platform() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);
    let log_dir = test_app.app.path().app_log_dir().unwrap();

    assert_eq!(
        invoke(&main_window, "app_info"),
        Ok(json!({
            "name": "Pi Desktop",
            "version": env!("CARGO_PKG_VERSION"),
            "logDir": log_dir.display().to_string(),
            "os": std::env::consts::OS,
            "arch": std::env::consts::ARCH,
        }))
    );
    assert!(
        log_dir.ends_with("dev.pi.desktop/logs"),
        "the identifier's log folder: {}",
        log_dir.display()
    );
}

#[test]
fn the_window_and_pi_chat_keep_conversations_in_the_same_data_folder() {
    let test_app = scripted_app();

    assert_eq!(
        test_app.app.path().app_data_dir().ok(),
        desktop_host::conversations::default_data_dir(),
        "tauri.conf.json's identifier names the folder desktop-host opens for pi-chat"
    );
}

#[test]
fn get_state_of_a_fresh_app_is_idle_and_empty_on_the_configured_model() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);

    let state = invoke(&main_window, "get_state").unwrap();

    assert_eq!(state["isStreaming"], json!(false));
    assert_eq!(state["pendingToolCalls"], json!([]));
    assert_eq!(state["messages"], json!([]));
    assert_eq!(state["model"]["api"], json!("scripted"));
}

#[test]
fn a_window_the_capabilities_do_not_name_cannot_call_app_info() {
    let test_app = scripted_app();
    let other_window = WebviewWindowBuilder::new(&test_app.app, "other", WebviewUrl::default())
        .build()
        .unwrap();

    let error = invoke(&other_window, "app_info").unwrap_err();

    assert!(error.to_string().contains("not allowed"), "{error}");
}

#[test]
fn the_opener_refuses_every_url_but_http_https_and_mailto() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);

    for url in [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "data:text/html,hi",
        "tel:+123",
        "ftp://example.com/",
    ] {
        let error = call(
            &main_window,
            "plugin:opener|open_url",
            json!({ "url": url }),
        )
        .unwrap_err();

        assert!(
            error
                .to_string()
                .contains(&format!("Not allowed to open url {url}")),
            "{url}: {error}"
        );
    }
}

#[test]
fn fetch_image_refuses_what_is_not_a_web_url_with_an_invalid_error() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);

    let error = call(
        &main_window,
        "fetch_image",
        json!({ "url": "file:///etc/passwd" }),
    )
    .unwrap_err();

    assert_eq!(
        error,
        json!({
            "kind": "invalid",
            "code": "image_refused",
            "detail": "only http and https images can be shown, not file:///etc/passwd"
        })
    );
}

#[test]
fn a_window_the_capabilities_do_not_name_cannot_open_urls() {
    let test_app = scripted_app();
    let other_window = WebviewWindowBuilder::new(&test_app.app, "other", WebviewUrl::default())
        .build()
        .unwrap();

    let error = call(
        &other_window,
        "plugin:opener|open_url",
        json!({ "url": "https://example.com/" }),
    )
    .unwrap_err();

    assert!(error.to_string().contains("not allowed"), "{error}");
}

#[test]
fn a_command_the_app_does_not_have_is_refused() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);

    let error = invoke(&main_window, "read_file").unwrap_err();

    assert!(error.to_string().contains("read_file"), "{error}");
}

#[test]
fn prompt_returns_once_accepted_and_the_runs_envelopes_reach_the_windows_channel_ending_in_idle() {
    let test_app = scripted_app();
    let (snapshot, captured) = subscribe(&test_app.app);
    assert_eq!(snapshot, json!({ "runs": [] }), "nothing runs yet");

    let accepted = prompt(&test_app.app, "hello there").unwrap();

    assert!(accepted["conversationId"].is_string(), "{accepted}");
    assert_eq!(accepted["runId"], json!(1));
    let envelopes = captured.wait_for_idle(&accepted);
    let seqs: Vec<u64> = envelopes
        .iter()
        .map(|envelope| envelope["seq"].as_u64().unwrap())
        .collect();
    let expected_seqs: Vec<u64> = (1..=envelopes.len() as u64).collect();
    assert_eq!(seqs, expected_seqs, "seq starts at 1 and has no gaps");
    assert!(envelopes.iter().all(|envelope| envelope["v"] == json!(1)));
    assert!(
        envelopes.iter().all(
            |envelope| envelope["conversationId"] == accepted["conversationId"]
                && envelope["runId"] == accepted["runId"]
        ),
        "every envelope names its conversation and run: {envelopes:?}"
    );
    assert_eq!(envelopes[0]["event"]["type"], json!("agent_start"));
    let answer: String = envelopes
        .iter()
        .filter(|envelope| envelope["event"]["type"] == json!("message_update"))
        .filter_map(|envelope| envelope["event"]["assistantMessageEvent"]["delta"].as_str())
        .collect();
    assert!(
        answer.contains("hello there"),
        "the scripted model echoes the prompt: {answer:?}"
    );
    let state = tauri::async_runtime::block_on(commands::active_conversation::get_state(
        test_app.app.state(),
        None,
    ))
    .unwrap();
    assert!(!state.session.is_streaming);
    assert_eq!(
        state.session.messages.len(),
        2,
        "the user prompt and the answer"
    );
}

#[test]
fn a_prompt_while_a_run_is_active_is_refused_with_pis_busy_message() {
    // One envelope in flight at most, and a window that holds the first one: the run cannot settle.
    let test_app = scripted_app_with(|options| options.envelope_capacity = 1);
    let (started_tx, started_rx) = mpsc::channel::<()>();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Mutex::new(release_rx);
    let blocking_channel: Channel<LeanEnvelope> = Channel::new(move |_body| {
        if started_tx.send(()).is_ok() {
            let _ = release_rx.lock().unwrap().recv();
        }
        Ok(())
    });
    tauri::async_runtime::block_on(commands::stream::subscribe(
        main_window(&test_app.app),
        test_app.app.state::<Conversations>(),
        blocking_channel,
        None,
    ))
    .unwrap();
    prompt(&test_app.app, "first").unwrap();
    started_rx.recv_timeout(Duration::from_secs(30)).unwrap();

    let refusal = prompt(&test_app.app, "second").unwrap_err();

    assert_eq!(refusal.kind, ErrorKind::Busy);
    assert_eq!(refusal.code, ErrorCode::Busy);
    assert_eq!(
        refusal.detail.as_deref(),
        Some(
            "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion."
        )
    );
    drop(release_tx);
}

fn prompt_with_images(
    app: &App<MockRuntime>,
    text: &str,
    images: Vec<(&str, &str)>,
) -> Result<Value, CommandError> {
    let images = images
        .into_iter()
        .map(|(data, mime_type)| commands::run::ImageInput {
            data: data.to_owned(),
            mime_type: mime_type.to_owned(),
        })
        .collect();
    tauri::async_runtime::block_on(commands::run::prompt(
        app.state::<Conversations>(),
        text.to_owned(),
        Some(images),
        None,
    ))
    .map(|accepted| serde_json::to_value(accepted).unwrap())
}

#[test]
fn a_lean_stream_sends_each_text_once_and_the_window_can_rebuild_the_answer() {
    let test_app = scripted_app();
    let (_snapshot, captured) = subscribe_with(&test_app.app, Some(true));

    let envelopes = captured.wait_for_idle(&prompt(&test_app.app, "hello").unwrap());

    let events: Vec<&Value> = envelopes
        .iter()
        .filter(|envelope| envelope["kind"] == json!("event"))
        .map(|envelope| &envelope["event"])
        .collect();
    let assistant_events = |kind: &str| -> Vec<&Value> {
        events
            .iter()
            .map(|event| &event["assistantMessageEvent"])
            .filter(|event| event["type"] == json!(kind))
            .collect()
    };
    let streamed: String = assistant_events("text_delta")
        .iter()
        .map(|event| event["delta"].as_str().unwrap())
        .collect();
    assert!(!streamed.is_empty(), "the answer streamed: {events:?}");
    let text_ends = assistant_events("text_end");
    assert!(!text_ends.is_empty());
    for end in text_ends {
        assert_eq!(end.get("content"), None, "{end}");
    }
    let ended = events
        .iter()
        .rev()
        .find(|event| {
            event["type"] == json!("message_end") && event["message"]["role"] == json!("assistant")
        })
        .unwrap();
    let text_block = ended["message"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|block| block["type"] == json!("text"))
        .unwrap();
    assert_eq!(text_block["streamed"], json!(true));
    assert_eq!(text_block["text"], json!(""));
    assert_eq!(ended["message"]["stopReason"], json!("stop"));
    for kind in ["turn_end", "agent_end"] {
        let event = events
            .iter()
            .find(|event| event["type"] == json!(kind))
            .unwrap();
        assert_eq!(**event, json!({ "type": kind }));
    }
    // What the deltas built is the answer as stored.
    let state = tauri::async_runtime::block_on(commands::active_conversation::get_state(
        test_app.app.state(),
        None,
    ))
    .unwrap();
    let stored = serde_json::to_value(state.session.messages.last().unwrap()).unwrap();
    let stored_text: String = stored["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect();
    assert_eq!(streamed, stored_text);
}

#[test]
fn a_plain_stream_repeats_the_text_at_the_end_as_pi_does() {
    let test_app = scripted_app();
    let (_snapshot, captured) = subscribe(&test_app.app);

    let envelopes = captured.wait_for_idle(&prompt(&test_app.app, "hello").unwrap());

    let text_end = envelopes
        .iter()
        .map(|envelope| &envelope["event"]["assistantMessageEvent"])
        .find(|event| event["type"] == json!("text_end"))
        .unwrap();
    assert!(
        text_end["content"]
            .as_str()
            .is_some_and(|text| !text.is_empty())
    );
    let agent_end = envelopes
        .iter()
        .map(|envelope| &envelope["event"])
        .find(|event| event["type"] == json!("agent_end"))
        .unwrap();
    assert!(!agent_end["messages"].as_array().unwrap().is_empty());
}

#[test]
fn a_prompt_with_one_image_streams_and_ends_with_idle_and_keeps_the_image() {
    let test_app = scripted_app();
    let (_snapshot, captured) = subscribe(&test_app.app);

    let accepted = prompt_with_images(
        &test_app.app,
        "what is this?",
        vec![("iVBORw0KGgo=", "image/png")],
    )
    .unwrap();

    let envelopes = captured.wait_for_idle(&accepted);
    assert_eq!(envelopes[0]["event"]["type"], json!("agent_start"));
    assert!(
        envelopes
            .iter()
            .any(|envelope| envelope["event"]["type"] == json!("message_update")),
        "the answer streamed"
    );
    assert_eq!(
        envelopes.last().unwrap()["notice"],
        json!({ "type": "idle" })
    );
    let state = tauri::async_runtime::block_on(commands::active_conversation::get_state(
        test_app.app.state(),
        None,
    ))
    .unwrap();
    let user = serde_json::to_value(&state.session.messages[0]).unwrap();
    assert_eq!(
        user["content"],
        json!([
            { "type": "text", "text": "what is this?" },
            { "type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png" },
        ])
    );
}

#[test]
fn a_prompt_with_a_file_keeps_it_as_a_block_naming_the_file_after_the_text() {
    let test_app = scripted_app();
    let (_snapshot, captured) = subscribe(&test_app.app);

    let accepted = tauri::async_runtime::block_on(commands::run::prompt(
        test_app.app.state::<Conversations>(),
        "summarise it".to_owned(),
        None,
        Some(vec![commands::run::FileInput {
            name: "plan \"v2\".md".to_owned(),
            text: "# Plan\nShip.".to_owned(),
        }]),
    ))
    .map(|accepted| serde_json::to_value(accepted).unwrap())
    .unwrap();

    captured.wait_for_idle(&accepted);
    let state = tauri::async_runtime::block_on(commands::active_conversation::get_state(
        test_app.app.state(),
        None,
    ))
    .unwrap();
    let user = serde_json::to_value(&state.session.messages[0]).unwrap();
    assert_eq!(
        user["content"],
        json!([
            { "type": "text", "text": "summarise it" },
            {
                "type": "text",
                "text": "<attached-file name=\"plan &quot;v2&quot;.md\">\n# Plan\nShip.\n</attached-file>"
            },
        ])
    );
}

#[test]
fn a_prompt_with_too_many_files_is_refused_as_invalid_before_anything_runs() {
    let test_app = scripted_app();
    let (_snapshot, captured) = subscribe(&test_app.app);
    let files = (0..9)
        .map(|index| commands::run::FileInput {
            name: format!("{index}.txt"),
            text: "x".to_owned(),
        })
        .collect();

    let refusal = tauri::async_runtime::block_on(commands::run::prompt(
        test_app.app.state::<Conversations>(),
        "read these".to_owned(),
        None,
        Some(files),
    ))
    .unwrap_err();

    assert_eq!(refusal.code, ErrorCode::InvalidPrompt);
    assert_eq!(
        refusal.detail.as_deref(),
        Some("A message can carry at most 8 files; this one has 9. Remove some and send again.")
    );
    assert_eq!(captured.all(), Vec::<Value>::new(), "nothing ran");
}

#[test]
fn a_prompt_with_an_unsupported_image_is_refused_as_invalid_before_anything_runs() {
    let test_app = scripted_app();
    let (_snapshot, captured) = subscribe(&test_app.app);

    let refusal = prompt_with_images(&test_app.app, "what is this?", vec![("aGk=", "image/bmp")])
        .unwrap_err();

    assert_eq!(refusal.kind, ErrorKind::Invalid);
    assert_eq!(refusal.code, ErrorCode::InvalidPrompt);
    assert_eq!(
        refusal.detail.as_deref(),
        Some("Image 1 has the type \"image/bmp\"; attach PNG, JPEG, GIF or WebP images.")
    );
    assert_eq!(captured.all(), Vec::<Value>::new(), "nothing ran");
}

#[test]
fn an_answer_to_an_approval_question_that_does_not_wait_is_refused_as_invalid() {
    let test_app = scripted_app();
    let (_snapshot, captured) = subscribe(&test_app.app);
    let accepted = prompt(&test_app.app, "hello").unwrap();
    captured.wait_for_idle(&accepted);

    let refusal = tauri::async_runtime::block_on(commands::run::resolve_approval(
        test_app.app.state::<Conversations>(),
        serde_json::from_value(accepted["conversationId"].clone()).unwrap(),
        1,
        desktop_host::approval::ApprovalDecision::AllowOnce,
    ))
    .unwrap_err();

    assert_eq!(refusal.kind, ErrorKind::Invalid);
    assert_eq!(refusal.code, ErrorCode::ApprovalNotPending);
    assert_eq!(
        refusal.detail.as_deref(),
        Some("this question was already answered or withdrawn")
    );
}

#[test]
fn new_conversation_starts_empty_after_a_run() {
    let test_app = scripted_app();
    let (_snapshot, captured) = subscribe(&test_app.app);
    captured.wait_for_idle(&prompt(&test_app.app, "hello").unwrap());
    let before = tauri::async_runtime::block_on(commands::active_conversation::get_state(
        test_app.app.state(),
        None,
    ))
    .unwrap();

    let state = tauri::async_runtime::block_on(commands::active_conversation::new_conversation(
        test_app.app.state(),
    ))
    .unwrap();

    assert!(state.session.messages.is_empty());
    assert!(!state.session.is_streaming);
    assert!(state.conversation_id.is_some());
    assert_ne!(state.conversation_id, before.conversation_id);
    let after = tauri::async_runtime::block_on(commands::active_conversation::get_state(
        test_app.app.state(),
        None,
    ))
    .unwrap();
    assert_eq!(
        after.conversation_id, state.conversation_id,
        "the new conversation is the active one"
    );
}

#[test]
fn a_tail_gives_a_long_transcript_from_its_end_and_says_what_it_left_out() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);
    let (_snapshot, captured) = subscribe(&test_app.app);
    for text in ["first question", "second question"] {
        captured.wait_for_idle(&prompt(&test_app.app, text).unwrap());
    }
    let whole = invoke(&main_window, "get_state").unwrap();
    assert_eq!(whole["messages"].as_array().unwrap().len(), 4, "{whole}");
    assert!(whole.get("leftOut").is_none(), "{whole}");

    let end = call(&main_window, "get_state", json!({"tail": 2})).unwrap();
    assert_eq!(
        end["messages"],
        json!(whole["messages"].as_array().unwrap()[2..])
    );
    assert_eq!(end["leftOut"], json!({"messages": 2, "shown": 2}));
    assert_eq!(
        end["versions"],
        json!(whole["versions"].as_array().unwrap()[2..]),
        "the versions of the kept messages alone"
    );
    let opened = call(
        &main_window,
        "open_conversation",
        json!({"conversationId": whole["conversationId"], "tail": 2}),
    )
    .unwrap();
    assert_eq!(opened["messages"], end["messages"]);
    assert_eq!(opened["leftOut"], end["leftOut"]);
    assert_eq!(opened["versions"], end["versions"]);
    let short_enough = call(&main_window, "get_state", json!({"tail": 4})).unwrap();
    assert_eq!(short_enough["messages"], whole["messages"]);
    assert_eq!(short_enough["versions"], whole["versions"]);
    assert!(short_enough.get("leftOut").is_none(), "{short_enough}");
}

#[test]
fn list_conversations_after_a_prompt_lists_that_conversation_as_active() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);
    let (_snapshot, captured) = subscribe(&test_app.app);
    captured.wait_for_idle(&prompt(&test_app.app, "hello list").unwrap());
    let state = invoke(&main_window, "get_state").unwrap();
    let conversation_id = state["conversationId"].clone();
    assert!(conversation_id.is_string(), "{state}");

    let list = invoke(&main_window, "list_conversations").unwrap();

    assert_eq!(list["activeId"], conversation_id);
    assert_eq!(list["streamingIds"], json!([]));
    let listed: Vec<Value> = list["days"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|day| day["conversations"].as_array().unwrap().clone())
        .map(|conversation| conversation["id"].clone())
        .collect();
    assert_eq!(listed, vec![conversation_id]);
    assert_eq!(list["storage"]["persistent"], json!(true));
}

#[test]
fn an_export_goes_where_the_user_chose_and_only_files_exported_so_can_be_shown_in_their_folder() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);
    let (_snapshot, captured) = subscribe(&test_app.app);
    let accepted = prompt(&test_app.app, "export me").unwrap();
    captured.wait_for_idle(&accepted);
    let chosen = test_app._home.path().join("chosen.md");
    std::fs::write(&chosen, "replaced by the export").unwrap();

    let exported = call(
        &main_window,
        "export_conversation",
        json!({
            "conversationId": accepted["conversationId"],
            "format": "markdown",
            "language": "en",
            "path": chosen,
        }),
    )
    .unwrap();

    assert_eq!(exported, json!({"fileName": "chosen.md", "path": chosen}));
    let markdown = std::fs::read_to_string(&chosen).unwrap();
    assert!(markdown.contains("export me"), "{markdown}");
    assert_eq!(
        call(
            &main_window,
            "reveal_exported_file",
            json!({"path": "/etc/passwd"})
        ),
        Err(json!({
            "kind": "invalid",
            "code": "invalid_input",
            "detail": "/etc/passwd is not a file this app exported"
        }))
    );
}

#[test]
fn the_window_may_call_neither_the_dialog_plugin_nor_the_openers_reveal_itself() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);

    for (cmd, args) in [
        ("plugin:dialog|save", json!({"options": {}})),
        ("plugin:dialog|open", json!({"options": {}})),
        (
            "plugin:opener|reveal_item_in_dir",
            json!({"paths": ["/etc"]}),
        ),
        ("plugin:opener|open_path", json!({"path": "/etc"})),
    ] {
        let error = call(&main_window, cmd, args).unwrap_err();
        assert!(error.to_string().contains("not allowed"), "{cmd}: {error}");
    }
}

#[test]
fn a_window_the_capabilities_do_not_name_cannot_list_conversations() {
    let test_app = scripted_app();
    let other_window = WebviewWindowBuilder::new(&test_app.app, "other", WebviewUrl::default())
        .build()
        .unwrap();

    let error = invoke(&other_window, "list_conversations").unwrap_err();

    assert!(error.to_string().contains("not allowed"), "{error}");
}

#[test]
fn a_queued_message_is_in_the_snapshot_until_cancelled_and_a_queued_one_sent_now_is_a_run_of_its_own()
 {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);
    let (_, captured) = subscribe(&test_app.app);

    let steer = call(
        &main_window,
        "steer",
        json!({"text": "look in Documents too"}),
    )
    .unwrap();
    assert_eq!(
        steer,
        json!({"id": 1, "kind": "steer", "text": "look in Documents too", "status": "waiting"})
    );
    captured.wait_for(|envelope| envelope["notice"]["type"] == "message_queued");
    // A reloaded window gets it back with the snapshot.
    let (snapshot, captured) = subscribe(&test_app.app);
    assert_eq!(snapshot["runs"], json!([]));
    assert_eq!(snapshot["queues"][0]["messages"], json!([steer]));
    let conversation_id = snapshot["queues"][0]["conversationId"].clone();

    call(
        &main_window,
        "cancel_queued",
        json!({"conversationId": conversation_id, "id": 1}),
    )
    .unwrap();
    captured.wait_for(|envelope| {
        envelope["notice"] == json!({"type": "queued_message_cancelled", "id": 1})
    });
    assert_eq!(
        call(
            &main_window,
            "cancel_queued",
            json!({"conversationId": conversation_id, "id": 1})
        ),
        Err(json!({"kind": "invalid", "code": "no_longer_queued"}))
    );

    let follow_up = call(
        &main_window,
        "follow_up",
        json!({"text": "hello from the queue"}),
    )
    .unwrap();
    let started = call(
        &main_window,
        "send_queued",
        json!({"conversationId": conversation_id, "id": follow_up["id"]}),
    )
    .unwrap();
    assert_eq!(started["type"], json!("started"), "{started}");
    assert_eq!(started["conversationId"], conversation_id);
    let envelopes = captured.wait_for_idle(&started);
    let consumed = envelopes
        .iter()
        .position(|envelope| envelope["notice"]["type"] == "queued_message_consumed")
        .unwrap();
    let run_start = envelopes
        .iter()
        .position(|envelope| envelope["event"]["type"] == "agent_start")
        .unwrap();
    assert!(
        consumed < run_start,
        "the chip goes before the run shows it"
    );
    let answer: String = envelopes
        .iter()
        .filter_map(|envelope| envelope["event"]["assistantMessageEvent"]["delta"].as_str())
        .collect();
    assert!(answer.contains("hello from the queue"), "{answer:?}");
    let (snapshot, _) = subscribe(&test_app.app);
    assert_eq!(
        snapshot,
        json!({"runs": []}),
        "nothing queued, nothing running"
    );

    let blank = call(&main_window, "steer", json!({"text": "  "})).unwrap_err();
    assert_eq!(blank["kind"], json!("invalid"));
}

#[test]
fn the_main_window_may_read_and_save_the_queue_modes_which_the_settings_file_keeps() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);
    assert_eq!(
        invoke(&main_window, "queue_settings").unwrap(),
        json!({"steeringMode": "one_at_a_time", "followUpMode": "one_at_a_time"})
    );

    let saved = call(
        &main_window,
        "save_queue_settings",
        json!({"settings": {"steeringMode": "all", "followUpMode": "one_at_a_time"}}),
    )
    .unwrap();

    assert_eq!(
        saved,
        json!({"steeringMode": "all", "followUpMode": "one_at_a_time"})
    );
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(
            test_app
                ._home
                .path()
                .join(".config/pi-desktop/settings.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(file, json!({"steeringMode": "all"}));
}

#[test]
fn a_window_the_capabilities_do_not_name_cannot_queue_cancel_or_send_messages() {
    let test_app = scripted_app();
    let other_window = WebviewWindowBuilder::new(&test_app.app, "other", WebviewUrl::default())
        .build()
        .unwrap();

    for command in [
        "steer",
        "follow_up",
        "cancel_queued",
        "send_queued",
        "queue_settings",
        "save_queue_settings",
    ] {
        let error = call(&other_window, command, json!({})).unwrap_err();
        assert!(
            error.to_string().contains("not allowed"),
            "{command}: {error}"
        );
    }
}

#[test]
fn the_main_window_may_list_the_mcp_servers_and_without_mcp_json_there_are_none() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);

    let view = invoke(&main_window, "mcp_servers").unwrap();

    assert_eq!(
        view,
        json!({"configFile": null, "servers": [], "problems": []})
    );
    let refusal = tauri::async_runtime::block_on(commands::mcp::revoke_mcp_grant(
        test_app
            .app
            .state::<std::sync::Arc<desktop_host::mcp::McpServers>>(),
        "nobody".to_owned(),
        None,
    ))
    .unwrap_err();
    assert_eq!(refusal.kind, ErrorKind::Invalid);
    assert_eq!(refusal.code, ErrorCode::McpUnknownServer);
    assert_eq!(
        refusal.detail.as_deref(),
        Some("there is no MCP server \"nobody\"")
    );
}

#[test]
fn the_main_window_may_read_the_settings_and_gets_no_key() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);

    let view = invoke(&main_window, "get_settings").unwrap();

    assert_eq!(view["apiKeySet"], json!(false));
    assert_eq!(view["presets"].as_array().unwrap().len(), 8);
    assert_eq!(view["keysStored"], json!([]));
    assert_eq!(view["language"], json!("auto"));
    assert_eq!(view["keyStorage"], json!("unavailable"));
}

#[test]
fn the_main_window_may_accept_the_key_file_and_the_view_then_says_file() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);

    let key_file = test_app
        ._home
        .path()
        .join(".config/pi-desktop/api-keys.json");
    assert!(!key_file.exists());
    let view = invoke(&main_window, "accept_key_file_fallback").unwrap();

    assert_eq!(view["keyStorage"], json!("file"));
    assert_eq!(view["apiKeySet"], json!(false));
    let again = invoke(&main_window, "get_settings").unwrap();
    assert_eq!(again["keyStorage"], json!("file"));
    assert!(key_file.exists());
}

#[test]
fn a_key_goes_to_the_provider_the_form_names_and_never_comes_back() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);
    invoke(&main_window, "accept_key_file_fallback").unwrap();

    let view = call(
        &main_window,
        "set_api_key",
        json!({"preset": "custom", "key": "sk-custom-secret"}),
    )
    .unwrap();

    assert_eq!(view["keysStored"], json!(["custom"]));
    assert_eq!(view["apiKeySet"], json!(false), "nothing is saved yet");
    assert!(!view.to_string().contains("sk-custom-secret"), "{view}");
    let deleted = call(&main_window, "delete_api_key", json!({"preset": "custom"})).unwrap();
    assert_eq!(deleted["keysStored"], json!([]));
    let refused = call(
        &main_window,
        "set_api_key",
        json!({"preset": "ollama", "key": "sk-custom-secret"}),
    )
    .unwrap_err();
    assert_eq!(refused["kind"], json!("invalid"));
    assert!(
        !refused.to_string().contains("sk-custom-secret"),
        "{refused}"
    );
}

/// The run's approval question, once it came.
fn question_of(captured: &Captured, accepted: &Value) -> Value {
    let envelopes = captured.wait_for(|envelope| {
        envelope["runId"] == accepted["runId"] && envelope["notice"]["type"] == "approval_requested"
    });
    envelopes[envelopes.len() - 1]["notice"].clone()
}

fn answer(app: &App<MockRuntime>, accepted: &Value, question: &Value, decision: ApprovalDecision) {
    tauri::async_runtime::block_on(commands::run::resolve_approval(
        app.state::<Conversations>(),
        serde_json::from_value(accepted["conversationId"].clone()).unwrap(),
        question["requestId"].as_u64().unwrap(),
        decision,
    ))
    .unwrap();
}

#[test]
fn the_main_window_lists_conversation_grants_and_a_revoke_makes_the_open_conversation_ask_again() {
    let test_app = scripted_app_with(|options| options.settings.ask_before_built_in_tools = true);
    let main_window = main_window(&test_app.app);
    let (_snapshot, captured) = subscribe(&test_app.app);
    assert_eq!(
        invoke(&main_window, "conversation_grants").unwrap(),
        json!([])
    );

    // The scripted model lists the Downloads' PDFs for a prompt naming them: a built-in call, which asks.
    let first = prompt(&test_app.app, "which pdf files did I download?").unwrap();
    let question = question_of(&captured, &first);
    assert_eq!(
        (&question["builtIn"], &question["offered"]),
        (
            &json!(true),
            &json!(["allow_once", "allow_conversation", "deny", "deny_and_stop"])
        )
    );
    answer(
        &test_app.app,
        &first,
        &question,
        ApprovalDecision::AllowConversation,
    );
    captured.wait_for_idle(&first);

    let grants = invoke(&main_window, "conversation_grants").unwrap();
    assert_eq!(
        grants,
        json!([{"conversationId": first["conversationId"], "conversationTitle": "which pdf files did I download?",
                "server": "", "tool": "list_download_files", "builtIn": true,
                "grantedAt": grants[0]["grantedAt"]}])
    );
    assert!(grants[0]["grantedAt"].is_i64(), "{grants}");
    let second = prompt(&test_app.app, "and the pdf files now?").unwrap();
    let envelopes = captured.wait_for_idle(&second);
    assert!(
        !envelopes
            .iter()
            .any(|envelope| envelope["runId"] == second["runId"]
                && envelope["notice"]["type"] == "approval_requested"),
        "allowed in this conversation: no question"
    );

    let left =
        tauri::async_runtime::block_on(commands::approval_grants::revoke_conversation_grant(
            test_app.app.state::<Conversations>(),
            serde_json::from_value(first["conversationId"].clone()).unwrap(),
            String::new(),
            "list_download_files".to_owned(),
        ))
        .unwrap();
    assert_eq!(left, vec![]);

    let third = prompt(&test_app.app, "the pdf files once more").unwrap();
    let question = question_of(&captured, &third);
    answer(
        &test_app.app,
        &third,
        &question,
        ApprovalDecision::Deny { note: None },
    );
    captured.wait_for_idle(&third);
    let refusal = invoke(&main_window, "revoke_conversation_grant").unwrap_err();
    assert!(
        !refusal.to_string().contains("not allowed"),
        "the main window may revoke: {refusal}"
    );
}

#[test]
fn the_main_window_may_read_and_save_the_approval_settings_which_the_settings_file_keeps() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);
    assert_eq!(
        invoke(&main_window, "approval_settings").unwrap(),
        json!({"askBeforeBuiltInTools": false})
    );

    let saved = tauri::async_runtime::block_on(commands::approval_grants::save_approval_settings(
        test_app
            .app
            .state::<desktop_host::settings::SettingsService>(),
        test_app.app.state::<Conversations>(),
        desktop_host::settings::ApprovalSettings {
            ask_before_built_in_tools: true,
        },
    ))
    .unwrap();

    assert!(saved.ask_before_built_in_tools);
    assert_eq!(
        invoke(&main_window, "approval_settings").unwrap(),
        json!({"askBeforeBuiltInTools": true})
    );
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(
            test_app
                ._home
                .path()
                .join(".config/pi-desktop/settings.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(file, json!({"askBeforeBuiltInTools": true}));
    let refusal = invoke(&main_window, "save_approval_settings").unwrap_err();
    assert!(
        !refusal.to_string().contains("not allowed"),
        "the main window may save: {refusal}"
    );
}

/// Keys in a shared map, standing in for the OS keychain.
#[derive(Clone, Debug, Default)]
struct MemoryKeychain(Arc<Mutex<HashMap<String, String>>>);

impl desktop_host::secrets::SecretBackend for MemoryKeychain {
    fn storage(&self) -> desktop_host::secrets::KeyStorage {
        desktop_host::secrets::KeyStorage::Keychain {
            service: "test".to_owned(),
        }
    }
    fn read(
        &self,
        name: &str,
    ) -> Result<Option<desktop_host::settings::ApiKey>, desktop_host::secrets::SecretsError> {
        Ok(self
            .0
            .lock()
            .unwrap()
            .get(name)
            .map(desktop_host::settings::ApiKey::new))
    }
    fn write(
        &self,
        name: &str,
        key: &desktop_host::settings::ApiKey,
    ) -> Result<(), desktop_host::secrets::SecretsError> {
        self.0
            .lock()
            .unwrap()
            .insert(name.to_owned(), key.expose().to_owned());
        Ok(())
    }
    fn remove(&self, name: &str) -> Result<bool, desktop_host::secrets::SecretsError> {
        Ok(self.0.lock().unwrap().remove(name).is_some())
    }
}

/// An app whose MCP servers live in a temporary home's config folder (no `mcp.json` yet), with the keychain in
/// memory, and Claude Desktop's and Cursor's files looked for in the same home.
struct McpTestApp {
    app: App<MockRuntime>,
    home: tempfile::TempDir,
    keychain: MemoryKeychain,
}

impl McpTestApp {
    fn mcp_file(&self) -> std::path::PathBuf {
        self.home.path().join(".config/pi-desktop/mcp.json")
    }

    fn mcp_json(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.mcp_file()).unwrap()).unwrap()
    }
}

fn mcp_app() -> McpTestApp {
    let home = tempfile::tempdir().unwrap();
    let config_dir = home.path().join(".config/pi-desktop");
    let keychain = MemoryKeychain::default();
    let backend = keychain.clone();
    let settings = desktop_host::settings::SettingsService::new(
        Some(config_dir.clone()),
        Box::new(move |_dir: &std::path::Path| {
            desktop_host::secrets::KeyStoreSetup::Ready(desktop_host::secrets::ApiKeys::new(
                Box::new(backend.clone()),
            ))
        }),
    );
    let servers = Arc::new(desktop_host::mcp::McpServers::load(
        Some(&config_dir),
        Arc::new(settings.clone()),
    ));
    let app = crate::configure(mock_builder())
        .manage(servers)
        .manage(settings)
        .manage(commands::mcp::McpWatchers::default())
        .manage(desktop_host::mcp::import::ImportFolders {
            home: Some(home.path().to_path_buf()),
            config: Some(home.path().join(".config")),
        })
        .build(tauri::generate_context!())
        .unwrap();
    McpTestApp {
        app,
        home,
        keychain,
    }
}

/// `(name, state)` of every server of a view.
fn states(view: &Value) -> Vec<(String, String)> {
    view["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|server| {
            (
                server["name"].as_str().unwrap().to_owned(),
                server["status"]["state"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_server_added_in_the_settings_is_saved_started_and_followed_live_then_turned_off_and_removed() {
    let test_app = mcp_app();
    let window = main_window(&test_app.app);
    let captured = Arc::new(Captured::default());
    let sink = Arc::clone(&captured);
    let on_change = Channel::new(move |body| {
        sink.seen.lock().unwrap().push(body_json(body));
        sink.arrived.notify_all();
        Ok(())
    });
    let first = tauri::async_runtime::block_on(commands::mcp::subscribe_mcp_servers(
        window.clone(),
        test_app.app.state(),
        test_app.app.state(),
        on_change,
    ))
    .unwrap();
    assert_eq!(first.servers, []);

    let saved = call(
        &window,
        "save_mcp_server",
        json!({"server": {"name": "missing", "disabled": false, "transport": {
            "type": "stdio", "command": "/nonexistent/mcp-server", "args": ["--flag"], "env": []}}}),
    )
    .unwrap();

    assert_eq!(
        saved["servers"][0]["launch"],
        json!("/nonexistent/mcp-server --flag")
    );
    // It cannot start; the window hears so without asking again.
    let seen = captured.wait_for(|view| view["servers"][0]["status"]["state"] == json!("failed"));
    assert!(
        seen.last().unwrap()["servers"][0]["status"]["reason"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/mcp-server"),
        "{seen:?}"
    );
    assert_eq!(
        test_app.mcp_json(),
        json!({"mcpServers": {"missing": {"command": "/nonexistent/mcp-server", "args": ["--flag"]}}})
    );

    let disabled = call(
        &window,
        "set_mcp_server_enabled",
        json!({"name": "missing", "enabled": false}),
    )
    .unwrap();
    assert_eq!(
        states(&disabled),
        [("missing".to_owned(), "disabled".to_owned())]
    );
    let refusal = call(&window, "restart_mcp_server", json!({"name": "missing"})).unwrap_err();
    assert_eq!(
        refusal,
        json!({"kind": "invalid", "code": "mcp_server_disabled",
               "detail": "the MCP server \"missing\" is disabled; enable it to start it"})
    );
    call(
        &window,
        "set_mcp_tool_enabled",
        json!({"server": "missing", "tool": "get-sum", "enabled": false}),
    )
    .unwrap();
    assert_eq!(
        test_app.mcp_json()["mcpServers"]["missing"],
        json!({"command": "/nonexistent/mcp-server", "args": ["--flag"], "disabled": true, "disabledTools": ["get-sum"]})
    );

    let removed = call(&window, "remove_mcp_server", json!({"name": "missing"})).unwrap();
    assert_eq!(removed["servers"], json!([]));
    assert_eq!(test_app.mcp_json(), json!({"mcpServers": {}}));
}

#[test]
fn a_value_entered_for_a_server_goes_to_the_keychain_and_a_wrong_field_or_a_broken_file_is_named() {
    let test_app = mcp_app();
    let window = main_window(&test_app.app);
    let server = |url: &str| {
        json!({"server": {"name": "remote", "disabled": true, "transport": {
            "type": "http", "url": url, "headers": [{"name": "Authorization", "value": "Bearer s3cret"}]}}})
    };

    let refusal = call(&window, "save_mcp_server", server("ftp://example.com")).unwrap_err();
    assert_eq!(
        refusal,
        json!({"kind": "invalid", "code": "mcp_entry_invalid",
               "detail": "MCP server \"remote\", field \"url\": must be a web address starting with http:// or https://"})
    );
    assert!(!test_app.mcp_file().exists());

    let view = call(
        &window,
        "save_mcp_server",
        server("https://example.com/mcp"),
    )
    .unwrap();

    assert_eq!(
        view["servers"][0]["transport"],
        json!({"type": "http", "url": "https://example.com/mcp", "headers": [{"name": "Authorization", "inKeychain": true}]})
    );
    assert!(!view.to_string().contains("s3cret"));
    assert!(
        !std::fs::read_to_string(test_app.mcp_file())
            .unwrap()
            .contains("s3cret")
    );
    assert_eq!(
        test_app
            .keychain
            .0
            .lock()
            .unwrap()
            .get("mcp.remote.Authorization"),
        Some(&"Bearer s3cret".to_owned())
    );

    std::fs::write(test_app.mcp_file(), "{\"mcpServers\": {").unwrap();
    let refusal = call(
        &window,
        "set_mcp_server_enabled",
        json!({"name": "remote", "enabled": true}),
    )
    .unwrap_err();
    assert_eq!(refusal["kind"], json!("storage"));
    assert_eq!(refusal["code"], json!("mcp_file_failed"));
    assert!(
        refusal["detail"]
            .as_str()
            .unwrap()
            .ends_with("is not valid JSON (EOF while parsing an object at line 1 column 16); fix the file or move it away: Pi Desktop did not change it"),
        "{refusal}"
    );
    assert_eq!(
        std::fs::read_to_string(test_app.mcp_file()).unwrap(),
        "{\"mcpServers\": {"
    );
}

#[test]
fn servers_of_claude_desktop_are_offered_with_their_command_line_and_arrive_disabled() {
    let test_app = mcp_app();
    let window = main_window(&test_app.app);
    let claude = test_app.home.path().join(".config/Claude");
    std::fs::create_dir_all(&claude).unwrap();
    std::fs::write(
        claude.join("claude_desktop_config.json"),
        r#"{"mcpServers": {"github": {"command": "npx", "args": ["-y", "gh-mcp"], "env": {"GITHUB_TOKEN": "ghp_abc"}}}}"#,
    )
    .unwrap();

    let offered = call(&window, "mcp_import_candidates", json!({})).unwrap();

    assert_eq!(
        offered["candidates"],
        json!([{"source": "claude_desktop", "name": "github", "launch": "npx -y gh-mcp", "problems": [], "nameTaken": false}])
    );
    assert_eq!(offered["files"][1]["source"], json!("cursor"));
    assert_eq!(offered["files"][1]["found"], json!(false));

    let view = call(
        &window,
        "import_mcp_servers",
        json!({"chosen": [{"source": "claude_desktop", "name": "github"}]}),
    )
    .unwrap();

    assert_eq!(
        states(&view),
        [("github".to_owned(), "disabled".to_owned())]
    );
    assert_eq!(view["servers"][0]["launch"], json!("npx -y gh-mcp"));
    assert!(
        !std::fs::read_to_string(test_app.mcp_file())
            .unwrap()
            .contains("ghp_abc")
    );
    let again = call(
        &window,
        "import_mcp_servers",
        json!({"chosen": [{"source": "claude_desktop", "name": "github"}]}),
    )
    .unwrap_err();
    assert_eq!(
        again,
        json!({"kind": "invalid", "code": "mcp_name_taken",
               "detail": "an MCP server named \"github\" exists already; give this one another name"})
    );
}

#[test]
fn a_window_the_capabilities_do_not_name_cannot_edit_the_mcp_servers() {
    let test_app = mcp_app();
    let other_window = WebviewWindowBuilder::new(&test_app.app, "other", WebviewUrl::default())
        .build()
        .unwrap();

    for command in [
        "save_mcp_server",
        "remove_mcp_server",
        "set_mcp_server_enabled",
        "set_mcp_tool_enabled",
        "restart_mcp_server",
        "mcp_import_candidates",
        "import_mcp_servers",
        "subscribe_mcp_servers",
    ] {
        let error = call(&other_window, command, json!({})).unwrap_err();
        assert!(
            error.to_string().contains("not allowed"),
            "{command}: {error}"
        );
    }
}

/// `get_state`'s versions as (seq, role, version, versions).
fn versions_of(state: &Value) -> Vec<(i64, String, u64, u64)> {
    state["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|version| {
            (
                version["seq"].as_i64().unwrap(),
                version["role"].as_str().unwrap().to_owned(),
                version["version"].as_u64().unwrap(),
                version["versions"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_main_window_regenerates_an_answer_into_a_second_version_and_shows_the_first_again() {
    let test_app = scripted_app();
    let main_window = main_window(&test_app.app);
    let (_snapshot, captured) = subscribe(&test_app.app);
    captured.wait_for_idle(&prompt(&test_app.app, "hello versions").unwrap());
    let state = invoke(&main_window, "get_state").unwrap();
    let conversation_id = state["conversationId"].clone();
    assert_eq!(
        versions_of(&state),
        vec![
            (0, "user".to_owned(), 1, 1),
            (1, "assistant".to_owned(), 1, 1)
        ]
    );

    let accepted = call(
        &main_window,
        "regenerate",
        json!({"conversationId": conversation_id, "seq": 1}),
    )
    .unwrap();
    let envelopes = captured.wait_for_idle(&accepted);

    let versions_notice = envelopes
        .iter()
        .find(|envelope| {
            envelope["runId"] == accepted["runId"] && envelope["notice"]["type"] == "versions"
        })
        .expect("a versions notice before idle");
    assert_eq!(
        versions_notice["notice"]["versions"][1]["version"],
        json!(2)
    );
    let state = invoke(&main_window, "get_state").unwrap();
    assert_eq!(
        versions_of(&state),
        vec![
            (0, "user".to_owned(), 1, 1),
            (2, "assistant".to_owned(), 2, 2)
        ]
    );
    assert_eq!(state["messages"].as_array().unwrap().len(), 2);

    let shown = call(
        &main_window,
        "show_version",
        json!({"conversationId": conversation_id, "seq": 2, "step": -1}),
    )
    .unwrap();
    assert_eq!(
        versions_of(&shown),
        vec![
            (0, "user".to_owned(), 1, 1),
            (1, "assistant".to_owned(), 1, 2)
        ]
    );
    let refused = call(
        &main_window,
        "show_version",
        json!({"conversationId": conversation_id, "seq": 1, "step": -1}),
    )
    .unwrap_err();
    assert_eq!(refused["code"], json!("not_on_branch"), "{refused}");
}

#[test]
fn regenerate_edit_and_continue_while_a_run_is_active_are_refused_with_run_active() {
    let test_app = scripted_app_with(|options| options.envelope_capacity = 1);
    let main_window = main_window(&test_app.app);
    let (_snapshot, captured) = subscribe(&test_app.app);
    captured.wait_for_idle(&prompt(&test_app.app, "first").unwrap());
    let conversation_id = invoke(&main_window, "get_state").unwrap()["conversationId"].clone();
    // The window holds the next envelope, so the second run cannot settle.
    let (started_tx, started_rx) = mpsc::channel::<()>();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let release_rx = Mutex::new(release_rx);
    let blocking_channel: Channel<LeanEnvelope> = Channel::new(move |_body| {
        if started_tx.send(()).is_ok() {
            let _ = release_rx.lock().unwrap().recv();
        }
        Ok(())
    });
    tauri::async_runtime::block_on(commands::stream::subscribe(
        main_window.clone(),
        test_app.app.state::<Conversations>(),
        blocking_channel,
        None,
    ))
    .unwrap();
    prompt(&test_app.app, "second").unwrap();
    started_rx.recv_timeout(Duration::from_secs(30)).unwrap();

    for (command, args) in [
        (
            "regenerate",
            json!({"conversationId": conversation_id, "seq": 1}),
        ),
        (
            "edit_message",
            json!({"conversationId": conversation_id, "seq": 0, "text": "first, again"}),
        ),
        (
            "show_version",
            json!({"conversationId": conversation_id, "seq": 1, "step": 1}),
        ),
        (
            "delete_message_pair",
            json!({"conversationId": conversation_id, "seq": 0}),
        ),
        (
            "continue_answer",
            json!({"conversationId": conversation_id}),
        ),
    ] {
        let refusal = call(&main_window, command, args).unwrap_err();
        assert_eq!(
            (refusal["kind"].clone(), refusal["code"].clone()),
            (json!("busy"), json!("run_active")),
            "{command}: {refusal}"
        );
        assert!(
            refusal["detail"]
                .as_str()
                .unwrap()
                .starts_with("a run is active"),
            "{command}: {refusal}"
        );
    }
    drop(release_tx);
}

#[test]
fn a_window_the_capabilities_do_not_name_cannot_change_versions() {
    let test_app = scripted_app();
    let other_window = WebviewWindowBuilder::new(&test_app.app, "other", WebviewUrl::default())
        .build()
        .unwrap();

    for command in [
        "regenerate",
        "edit_message",
        "show_version",
        "delete_message_pair",
        "restore_messages",
        "continue_answer",
    ] {
        let error = call(&other_window, command, json!({})).unwrap_err();
        assert!(
            error.to_string().contains("not allowed"),
            "{command}: {error}"
        );
    }
}
