//! The first run with nothing configured, in the real window against loopback model servers: the empty
//! conversation is the setup card, a local Ollama-compatible server that answers is offered first, a model is
//! chosen from its list and the question is answered by it; a custom OpenAI-compatible server that takes a key
//! lists its models after Test connection. And a connection that never hangs unseen: a model gone silent
//! mid-answer is counted in the status line until Stop.

use std::sync::Arc;
use std::time::Duration;

use pi_desktop_e2e::{AppUnderTest, LaunchOptions};
use pi_test_support::openai::{OpenAiServer, Reply, text_chunks, unfinished_text_chunks};
use pi_test_support::{LoopbackServer, Request, Response, Stream};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::model_server::LaunchApp;
use crate::support::stop::stop_the_answer;

/// The models the loopback servers list.
const MODELS: [&str; 2] = ["qwen3:8b", "llama3.2"];

/// The custom server's key.
const CUSTOM_KEY: &str = "sk-e2e-custom";

/// A model server on loopback that lists [`MODELS`] (Ollama's `/api/tags` and the OpenAI-compatible
/// `/v1/models`) and streams one answer to every chat request; with `key`, every request must carry it.
async fn listing_server(key: Option<&'static str>) -> LoopbackServer {
    LoopbackServer::start(move |request, _| answer(request, key))
        .await
        .unwrap()
}

fn answer(request: &Request, key: Option<&str>) -> Response {
    if let Some(key) = key
        && request.header("authorization") != Some(format!("Bearer {key}").as_str())
    {
        return Response::json(401, &json!({"error": {"message": "invalid api key"}}));
    }
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/api/tags") => Response::json(
            200,
            &json!({"models": MODELS.iter().map(|name| json!({"name": name, "model": name})).collect::<Vec<_>>()}),
        ),
        ("GET", "/v1/models") => Response::json(
            200,
            &json!({"object": "list", "data": MODELS.iter().map(|id| json!({"id": id, "object": "model"})).collect::<Vec<_>>()}),
        ),
        ("POST", "/v1/chat/completions") => {
            let chunks = text_chunks(&["Your Downloads folder ", "is empty."]);
            let stream = chunks.iter().fold(Stream::sse(), |stream, chunk| {
                stream.write(format!("data: {chunk}\n\n"))
            });
            Response::stream(stream.write("data: [DONE]\n\n"))
        }
        _ => Response::json(404, &json!({"error": {"message": "not found"}})),
    }
}

/// Launches the app with nothing configured; `envs` adds to that (where a local Ollama listens, for instance).
async fn launch_unconfigured(envs: Vec<(String, String)>) -> AppUnderTest {
    AppUnderTest::launch(LaunchOptions {
        envs,
        args: Vec::new(),
    })
    .await
    .unwrap()
}

async fn click(app: &AppUnderTest, selector: &str) {
    app.wait_for_css(selector)
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

async fn option_texts(app: &AppUnderTest, selector: &str) -> Vec<String> {
    let mut texts = Vec::new();
    for option in app
        .client()
        .find_all(fantoccini::Locator::Css(selector))
        .await
        .unwrap()
    {
        texts.push(option.text().await.unwrap());
    }
    texts
}

fn chat_requests(server: &LoopbackServer) -> Vec<Value> {
    server
        .requests()
        .into_iter()
        .filter(|request| request.path.ends_with("/chat/completions"))
        .map(|request| request.body)
        .collect()
}

#[tokio::test]
async fn a_first_run_finds_the_local_ollama_and_the_chosen_model_answers_the_question() {
    let server = Arc::new(listing_server(None).await);
    let ollama_host = server.origin().trim_start_matches("http://").to_owned();
    let app = launch_unconfigured(vec![("OLLAMA_HOST".to_owned(), ollama_host)]).await;

    app.find_test_id("setup-card").await.unwrap();
    // Until a model is usable Send is disabled, with the reason beside it.
    app.find_test_id("send-blocked-reason").await.unwrap();
    assert!(
        !app.find_test_id("send-button")
            .await
            .unwrap()
            .is_enabled()
            .await
            .unwrap(),
        "Send before any model is usable"
    );
    app.wait_for_css(r#"[data-testid="local-server"][data-preset="ollama"]"#)
        .await
        .unwrap();
    assert_eq!(
        option_texts(&app, r#"[data-testid="setup-model-option"]"#).await,
        MODELS
    );
    app.screenshot("first-run-setup-card").await.unwrap();
    app.find_test_id("setup-model")
        .await
        .unwrap()
        .select_by_value("llama3.2")
        .await
        .unwrap();
    click(&app, r#"[data-testid="setup-done"]:not([disabled])"#).await;

    // The provider is usable now: the header picks the model, and the question is answered by it.
    app.wait_for_css(r#"[data-testid="model-picker"]"#)
        .await
        .unwrap();
    app.wait_for_css(r#"[data-testid="send-button"]:not([disabled])"#)
        .await
        .unwrap();
    app.send_prompt("What is in my Downloads folder?")
        .await
        .unwrap();
    app.wait_for_xpath(
        r#"//*[@data-testid="message-assistant" and @data-state="done"]//*[@data-testid="assistant-text" and contains(., "Your Downloads folder is empty.")]"#,
    )
    .await
    .unwrap();
    app.wait_for_text("status-model", "llama3.2").await.unwrap();
    app.screenshot("first-run-answered").await.unwrap();

    // Another model from the header: the next turn goes to it.
    app.wait_for_css(r#"[data-testid="model-picker"]:not([disabled])"#)
        .await
        .unwrap();
    assert_eq!(
        option_texts(&app, r#"[data-testid="model-option"]"#).await,
        MODELS
    );
    app.find_test_id("model-picker")
        .await
        .unwrap()
        .select_by_value("qwen3:8b")
        .await
        .unwrap();
    // The status line names the model the last answer came from, and the one the next turn goes to.
    app.wait_for_text("status-model", "llama3.2 (next turn: qwen3:8b)")
        .await
        .unwrap();
    app.send_prompt("And now?").await.unwrap();
    app.wait_for_xpath(
        r#"(//*[@data-testid="message-assistant" and @data-state="done"])[2]//*[@data-testid="assistant-text" and contains(., "Your Downloads folder is empty.")]"#,
    )
    .await
    .unwrap();
    app.wait_for_text("status-model", "qwen3:8b").await.unwrap();
    let requests = chat_requests(&server);
    assert_eq!(requests.len(), 2, "two chat requests");
    assert_eq!(requests[0]["model"], "llama3.2");
    assert_eq!(requests[1]["model"], "qwen3:8b");
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_custom_openai_compatible_server_with_a_key_lists_its_models_after_test_connection() {
    let server = listing_server(Some(CUSTOM_KEY)).await;
    let app = launch_unconfigured(Vec::new()).await;

    app.find_test_id("setup-card").await.unwrap();
    app.find_test_id("setup-preset")
        .await
        .unwrap()
        .select_by_value("custom")
        .await
        .unwrap();
    let base_url = app.find_test_id("setup-base-url").await.unwrap();
    base_url.clear().await.unwrap();
    base_url
        .send_keys(&format!("{}/v1", server.origin()))
        .await
        .unwrap();
    app.find_test_id("setup-api-key")
        .await
        .unwrap()
        .send_keys(CUSTOM_KEY)
        .await
        .unwrap();
    click(
        &app,
        r#"[data-testid="setup-card"] [data-testid="test-connection"]"#,
    )
    .await;

    app.wait_for_css(r#"[data-testid="connection-report"][data-ok="true"]"#)
        .await
        .unwrap();
    assert_eq!(
        option_texts(&app, r#"[data-testid="setup-model-option"]"#).await,
        MODELS
    );
    app.screenshot("first-run-custom-server").await.unwrap();
    let listed: Vec<Request> = server
        .requests()
        .into_iter()
        .filter(|request| request.path == "/v1/models")
        .collect();
    assert!(!listed.is_empty(), "the model list was asked for");
    for request in &listed {
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {CUSTOM_KEY}").as_str())
        );
    }
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_model_gone_silent_mid_answer_is_counted_in_the_status_line_until_stop() {
    let server = OpenAiServer::start(vec![Reply::Hold(unfinished_text_chunks(&["Let me look"]))])
        .await
        .unwrap();
    let app = server.launch_app().await;

    app.send_prompt("What is in Downloads?").await.unwrap();
    app.wait_for_xpath(r#"//*[@data-testid="assistant-text" and contains(., "Let me look")]"#)
        .await
        .unwrap();
    let waiting = app.find_test_id("waiting-for-model").await.unwrap();
    let text = waiting.text().await.unwrap();
    assert!(
        text.starts_with("waiting for the model… ") && text.ends_with(" s"),
        "{text}"
    );
    app.screenshot("waiting-for-the-model").await.unwrap();

    stop_the_answer(&app, &server, Duration::from_secs(30)).await;
    app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
        .await
        .unwrap();
    let gone = app
        .client()
        .find_all(fantoccini::Locator::Css(
            r#"[data-testid="waiting-for-model"]"#,
        ))
        .await
        .unwrap();
    assert!(gone.is_empty(), "the counter stays after Stop");
    app.close().await.unwrap();
}
