//! The connection settings on the host's real road to a model (settings → `models_for` → pi-ai → HTTP + SSE to
//! a loopback OpenAI-compatible server): a stalled stream ends with the idle timeout and keeps the partial
//! answer, a 429 with `retry-after` is retried and reported, Stop cancels the wait; and `pi-chat` as a process
//! behind a proxy: the proxy variables and the settings' proxy are followed, a loopback base URL never is.

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use desktop_host::connection::RetryNoticeView;
use desktop_host::model_registry::{model_for, models_for, models_reporting_retries};
use desktop_host::session::{DesktopSession, SessionOptions};
use desktop_host::settings::{
    NoKeySource, ResolveInputs, ResolvedSettings, SettingsFile, TcpProbe, resolve_settings,
};
use pi_ai::{
    CancellationToken, Context, RetryCause, RetryNotice, SimpleStreamOptions, StopReason,
    UserMessage,
};
use pi_test_support::openai::{MODEL, OpenAiServer, Reply, text_chunks, unfinished_text_chunks};
use pi_test_support::{Response, TestProxy};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::envelopes::{EnvelopeLog, assistant_text};
use crate::support::home::test_home;

/// The settings `PI_API=openai-completions` at `base_url` resolves to, with `connection` tweaked by the test.
fn loopback_settings(base_url: &str) -> ResolvedSettings {
    let env: HashMap<String, String> = [
        ("PI_API", "openai-completions"),
        ("PI_BASE_URL", base_url),
        ("PI_MODEL", MODEL),
    ]
    .into_iter()
    .map(|(key, value)| (key.to_owned(), value.to_owned()))
    .collect();
    resolve_settings(&ResolveInputs {
        file: &SettingsFile::default(),
        env: &env,
        key_env_override: None,
        key_source: &NoKeySource,
        probe: &TcpProbe::default(),
        settings_path: None,
    })
    .unwrap()
}

fn context() -> Context {
    Context {
        system_prompt: None,
        messages: vec![UserMessage::new("Hello").into()],
        tools: None,
    }
}

fn last_message(session: &DesktopSession) -> Value {
    let state = session.get_state();
    serde_json::to_value(state.messages.last().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_stream_ends_with_the_idle_timeout_and_keeps_the_partial_answer() {
    let server = OpenAiServer::start(vec![Reply::Hold(unfinished_text_chunks(&[
        "The first part ",
        "of the answer",
    ]))])
    .await
    .unwrap();
    let mut settings = loopback_settings(server.base_url());
    settings.connection.idle_timeout = Duration::from_millis(300);
    let home = test_home();
    let (session, envelopes) =
        DesktopSession::start_with_channel(SessionOptions::new(settings, home.paths.clone()))
            .unwrap();
    let _log = EnvelopeLog::start(envelopes);
    session.prompt("Tell me something").await.unwrap();

    let message = last_message(&session);
    assert_eq!(message["role"], "assistant");
    assert_eq!(message["stopReason"], "error");
    let error = message["errorMessage"].as_str().unwrap();
    assert!(error.contains("idle timeout"), "{error}");
    assert!(error.contains("0.3 s"), "{error}");
    assert_eq!(assistant_text(&message), "The first part of the answer");
    assert_eq!(session.get_state().error_message.as_deref(), Some(error));
    // The stalled connection is closed, not left open.
    server.client_closed().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_with_retry_after_is_retried_once_and_reported_then_answers() {
    let server = OpenAiServer::start(vec![
        Reply::Response(
            Response::json(
                429,
                &json!({"error": {"message": "Rate limit reached", "type": "requests"}}),
            )
            .header("retry-after", "1"),
        ),
        Reply::Stream(text_chunks(&["Worth ", "the wait."])),
    ])
    .await
    .unwrap();
    let settings = loopback_settings(server.base_url());
    assert_eq!(settings.connection.max_retries, 3);
    let notices = Arc::new(Mutex::new(Vec::new()));
    let models = models_reporting_retries(&settings, {
        let notices = Arc::clone(&notices);
        Arc::new(move |notice: &RetryNotice| notices.lock().unwrap().push(notice.clone()))
    })
    .unwrap();
    let started = Instant::now();
    let message = models
        .stream_simple(
            &model_for(&settings),
            context(),
            SimpleStreamOptions::default(),
        )
        .finish()
        .await
        .unwrap();
    assert_eq!(
        message.stop_reason,
        StopReason::Stop,
        "{:?}",
        message.error_message
    );
    assert_eq!(message.text(), "Worth the wait.");
    assert!(started.elapsed() >= Duration::from_secs(1));
    let notices = notices.lock().unwrap().clone();
    assert_eq!(
        notices,
        vec![RetryNotice {
            attempt: 1,
            max_retries: 3,
            delay: Duration::from_secs(1),
            cause: RetryCause::Status(429),
        }]
    );
    assert_eq!(
        serde_json::to_value(RetryNoticeView::from(&notices[0])).unwrap(),
        json!({"attempt": 1, "maxRetries": 3, "delayMs": 1000, "cause": "status", "status": 429})
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_retries_a_server_error_by_itself_and_shows_one_answer() {
    let server = OpenAiServer::start(vec![
        Reply::Response(
            Response::json(503, &json!({"error": {"message": "overloaded"}}))
                .header("retry-after-ms", "10"),
        ),
        Reply::Stream(text_chunks(&["Back again."])),
    ])
    .await
    .unwrap();
    let home = test_home();
    let (session, envelopes) = DesktopSession::start_with_channel(SessionOptions::new(
        loopback_settings(server.base_url()),
        home.paths.clone(),
    ))
    .unwrap();
    let mut log = EnvelopeLog::start(envelopes);
    session.prompt("Hi").await.unwrap();
    let message = last_message(&session);
    assert_eq!(message["stopReason"], "stop", "{message}");
    assert_eq!(assistant_text(&message), "Back again.");
    // The window is told of the retry before its wait, after what the turn sent.
    log.wait_for_idle().await;
    let notices: Vec<&Value> = log
        .seen
        .iter()
        .filter_map(|envelope| envelope.get("notice"))
        .filter(|notice| notice["type"] == "model_retry" || notice["type"] == "turn_request")
        .collect();
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert_eq!(notices[0]["type"], "turn_request");
    assert_eq!(notices[0]["messageCount"], 1);
    assert_eq!(
        notices[1],
        &json!({"type": "model_retry", "attempt": 1, "maxRetries": 3, "delayMs": 10, "cause": "status", "status": 503})
    );
    let assistants = session
        .get_state()
        .messages
        .iter()
        .filter(|m| serde_json::to_value(m).unwrap()["role"] == "assistant")
        .count();
    assert_eq!(assistants, 1);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_during_the_retry_wait_ends_the_answer_at_once_without_another_request() {
    let server = OpenAiServer::start(vec![
        Reply::Response(
            Response::json(429, &json!({"error": {"message": "slow down"}}))
                .header("retry-after", "30"),
        ),
        Reply::Stream(text_chunks(&["never sent"])),
    ])
    .await
    .unwrap();
    let settings = loopback_settings(server.base_url());
    let (told, mut waiting) = tokio::sync::mpsc::unbounded_channel();
    let models = models_reporting_retries(
        &settings,
        Arc::new(move |notice: &RetryNotice| {
            let _ = told.send(notice.clone());
        }),
    )
    .unwrap();
    let stop = CancellationToken::new();
    let mut options = SimpleStreamOptions::default();
    options.base.signal = Some(stop.clone());
    let stream = models.stream_simple(&model_for(&settings), context(), options);
    let notice = waiting.recv().await.unwrap();
    assert_eq!((notice.attempt, notice.max_retries), (1, 3));
    assert_eq!(notice.delay, Duration::from_secs(30));
    let stopped = Instant::now();
    stop.cancel();
    let message = stream.finish().await.unwrap();
    assert!(stopped.elapsed() < Duration::from_secs(2));
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_retry_once_the_answer_has_started_streaming() {
    let server = OpenAiServer::start(vec![Reply::Hold(unfinished_text_chunks(&["Half "]))])
        .await
        .unwrap();
    let mut settings = loopback_settings(server.base_url());
    settings.connection.idle_timeout = Duration::from_millis(200);
    let notices = Arc::new(Mutex::new(Vec::new()));
    let models = models_reporting_retries(&settings, {
        let notices = Arc::clone(&notices);
        Arc::new(move |notice: &RetryNotice| notices.lock().unwrap().push(notice.clone()))
    })
    .unwrap();
    let message = models
        .stream_simple(
            &model_for(&settings),
            context(),
            SimpleStreamOptions::default(),
        )
        .finish()
        .await
        .unwrap();
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.text(), "Half ");
    assert!(notices.lock().unwrap().is_empty());
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn known_models_carry_their_figures_whatever_the_base_url() {
    let mut settings = loopback_settings("http://127.0.0.1:9/v1");
    settings.model = "openai/gpt-4o".to_owned();
    let model = model_for(&settings);
    assert_eq!((model.context_window, model.max_tokens), (128_000, 16_384));
    assert_eq!(model.input.len(), 2);
    assert!((model.cost.input - 2.5).abs() < 1e-9);
    settings.model = "my-local-finetune".to_owned();
    let model = model_for(&settings);
    assert_eq!((model.context_window, model.max_tokens), (128_000, 8_192));
    assert_eq!(model.input.len(), 1);
    assert!(models_for(&settings).is_ok());
}

/// Runs `pi-chat --prompt Hello` against `base_url` with a clean environment whose only home is `home`.
async fn pi_chat(home: &Path, base_url: &str, extra_env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pi-chat"));
    command
        .env_clear()
        .env("HOME", home)
        .env("LANG", "C.UTF-8")
        .env("TEST_MODEL_KEY", "sk-proxy-test")
        .args([
            "--prompt",
            "Hello",
            "--api",
            "openai-completions",
            "--base-url",
            base_url,
            "--model",
            MODEL,
            "--api-key-env",
            "TEST_MODEL_KEY",
        ]);
    for (key, value) in extra_env {
        command.env(key, value);
    }
    tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .unwrap()
}

fn assert_answered(output: &Output, text: &str) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains(text),
        "stdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The port of the server's base URL `http://127.0.0.1:<port>/v1`.
fn port_of(server: &OpenAiServer) -> String {
    let base = server.base_url().trim_end_matches("/v1");
    base.rsplit(':').next().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pi_chat_goes_through_the_proxy_the_environment_names_but_not_for_loopback() {
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&["via the proxy"]))])
        .await
        .unwrap();
    let proxy = TestProxy::start().await.unwrap();
    let port = port_of(&server);
    let remote = format!("http://models.example.test:{port}/v1");
    let home = test_home();

    // HTTP_PROXY for http:// addresses.
    let output = pi_chat(home.home(), &remote, &[("HTTP_PROXY", &proxy.http_url())]).await;
    assert_answered(&output, "via the proxy");
    let proxied = proxy.proxied();
    assert_eq!(proxied.len(), 1);
    assert_eq!(proxied[0].target, format!("models.example.test:{port}"));

    // ALL_PROXY with SOCKS5, the proxy resolving the name.
    let output = pi_chat(home.home(), &remote, &[("ALL_PROXY", &proxy.socks5h_url())]).await;
    assert_answered(&output, "via the proxy");
    assert_eq!(proxy.proxied().len(), 2);
    assert_eq!(
        proxy.proxied()[1].protocol,
        pi_test_support::ProxyProtocol::Socks5
    );

    // A loopback base URL goes direct even though every proxy variable names the proxy.
    let output = pi_chat(
        home.home(),
        server.base_url(),
        &[
            ("HTTP_PROXY", &proxy.http_url()),
            ("http_proxy", &proxy.http_url()),
            ("ALL_PROXY", &proxy.socks5h_url()),
        ],
    )
    .await;
    assert_answered(&output, "via the proxy");
    assert_eq!(proxy.proxied().len(), 2, "{:?}", proxy.proxied());

    // NO_PROXY is followed: the name is tried directly, where it does not resolve.
    let output = pi_chat(
        home.home(),
        &remote,
        &[
            ("HTTP_PROXY", &proxy.http_url()),
            ("NO_PROXY", "example.test"),
        ],
    )
    .await;
    assert!(!output.status.success());
    assert_eq!(proxy.proxied().len(), 2);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pi_chat_follows_the_settings_proxy_and_its_none_over_the_environment() {
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&["set in Settings"]))])
        .await
        .unwrap();
    let proxy = TestProxy::start().await.unwrap();
    let port = port_of(&server);
    let remote = format!("http://models.example.test:{port}/v1");
    let home = test_home();
    let settings_file = home.home().join(".config/pi-desktop/settings.json");
    std::fs::create_dir_all(settings_file.parent().unwrap()).unwrap();

    std::fs::write(
        &settings_file,
        json!({"proxy": {"mode": "manual", "url": proxy.socks5h_url()}}).to_string(),
    )
    .unwrap();
    let output = pi_chat(home.home(), &remote, &[]).await;
    assert_answered(&output, "set in Settings");
    assert_eq!(proxy.proxied().len(), 1);

    // "None" wins over the environment: the name is tried directly and does not resolve.
    std::fs::write(
        &settings_file,
        json!({"proxy": {"mode": "none"}}).to_string(),
    )
    .unwrap();
    let output = pi_chat(home.home(), &remote, &[("HTTP_PROXY", &proxy.http_url())]).await;
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("models.example.test"), "{stderr}");
    assert_eq!(proxy.proxied().len(), 1);
    assert_eq!(server.requests().len(), 1);
}
