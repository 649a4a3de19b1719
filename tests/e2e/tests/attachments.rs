//! Attachments and usage in the real window against a loopback OpenAI-compatible model: an image attached
//! through the file input reaches the model as an image (for a model that reads images), a PDF from Downloads
//! reaches it as its text and is still shown after a restart, a model without image input gets the notice
//! before anything is sent, and an answer with usage shows its tokens, its cost and the conversation's totals.

use std::path::Path;

use pi_desktop_e2e::{AppUnderTest, LaunchOptions};
use pi_test_support::openai::{MODEL, OpenAiServer, Reply, text_chunks};
use pi_test_support::pdf::pdf_with_pages;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::model_server::LaunchApp;

/// A 48×48 PNG: a green square with a darker border.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAADAAAAAwCAIAAADYYG7QAAAAR0lEQVR42u3YQQ0AIAwAsTnBCBLQgoDJQ9k88IElTU5A3xcj51cFUGvQOvtJQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE4+0GUF36GRZiXlJRIAAAAASUVORK5CYII=";
/// A model the known-models table says reads images, with a price.
const IMAGE_MODEL: &str = "gpt-4o";

/// The app pointed at `server`, asking for `model`.
async fn launch_with_model(server: &OpenAiServer, model: &str) -> AppUnderTest {
    AppUnderTest::launch(LaunchOptions {
        envs: envs_with_model(server, model),
        args: Vec::new(),
    })
    .await
    .unwrap()
}

fn envs_with_model(server: &OpenAiServer, model: &str) -> Vec<(String, String)> {
    server
        .app_envs()
        .into_iter()
        .map(|(name, value)| {
            if name == "PI_MODEL" {
                (name, model.to_owned())
            } else {
                (name, value)
            }
        })
        .collect()
}

/// An answer ending with the usage chunk an OpenAI-compatible server sends last.
fn answer_with_usage(text: &str, prompt_tokens: u64, cached: u64, completion: u64) -> Vec<Value> {
    let mut chunks = text_chunks(&[text]);
    chunks.push(json!({
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": MODEL,
        "choices": [],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion,
            "total_tokens": prompt_tokens + completion,
            "prompt_tokens_details": { "cached_tokens": cached },
        },
    }));
    chunks
}

/// Hands `path` to the composer's file input, as the file picker would.
async fn attach(app: &AppUnderTest, path: &Path) {
    app.find_test_id("attach-input")
        .await
        .unwrap()
        .send_keys(path.to_str().unwrap())
        .await
        .unwrap();
}

async fn wait_until_idle(app: &AppUnderTest) {
    app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
        .await
        .unwrap();
}

/// The content blocks of the last user message of the `index`-th chat request.
fn last_user_content(server: &OpenAiServer, index: usize) -> Vec<Value> {
    let requests = server.requests();
    let body = &requests[index].body;
    let user = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|message| message["role"] == "user")
        .unwrap()
        .clone();
    match &user["content"] {
        Value::Array(blocks) => blocks.clone(),
        other => vec![json!({ "type": "text", "text": other })],
    }
}

async fn text_of(app: &AppUnderTest, css: &str) -> String {
    app.wait_for_css(css).await.unwrap().text().await.unwrap()
}

#[tokio::test]
async fn an_image_attached_by_the_file_input_reaches_the_model_as_an_image_and_the_answer_shows_its_usage()
 {
    let server = OpenAiServer::start(vec![Reply::Stream(answer_with_usage(
        "A green square.",
        1200,
        200,
        34,
    ))])
    .await
    .unwrap();
    let app = launch_with_model(&server, IMAGE_MODEL).await;
    let picture = app.home().join("Pictures/square.png");
    std::fs::create_dir_all(picture.parent().unwrap()).unwrap();
    std::fs::write(&picture, base64_decode(PNG_BASE64)).unwrap();

    attach(&app, &picture).await;
    app.wait_for_css(
        r#"[data-testid="attachment-chip"][data-kind="image"][data-state="ready"] img"#,
    )
    .await
    .unwrap();
    app.send_prompt("What is in this picture?").await.unwrap();
    app.wait_for_xpath(
        r#"//*[@data-testid="message-assistant" and @data-state="done"]//*[@data-testid="assistant-text" and contains(., "A green square.")]"#,
    )
    .await
    .unwrap();
    wait_until_idle(&app).await;

    let content = last_user_content(&server, 0);
    assert_eq!(
        content,
        vec![
            json!({ "type": "text", "text": "What is in this picture?" }),
            json!({ "type": "image_url", "image_url": { "url": format!("data:image/png;base64,{PNG_BASE64}") } }),
        ]
    );
    app.find_test_id("user-attachment-image").await.unwrap();
    assert_eq!(
        text_of(
            &app,
            r#"[data-testid="answer-usage"] [data-testid="usage-input"]"#
        )
        .await,
        "in 1,000"
    );
    assert_eq!(
        text_of(
            &app,
            r#"[data-testid="answer-usage"] [data-testid="usage-output"]"#
        )
        .await,
        "out 34"
    );
    assert_eq!(
        text_of(
            &app,
            r#"[data-testid="answer-usage"] [data-testid="usage-cache"]"#
        )
        .await,
        "cache read 200 · cache write 0"
    );
    // gpt-4o: $2.50 per million input tokens, $10 output, $1.25 cached.
    assert_eq!(
        text_of(
            &app,
            r#"[data-testid="answer-usage"] [data-testid="usage-cost"]"#
        )
        .await,
        "$0.0031"
    );
    assert_eq!(
        text_of(&app, r#"[data-testid="conversation-usage"]"#).await,
        "Total: in 1,000 · out 34 · cache read 200 · cache write 0 · $0.0031 (1 call)"
    );
    assert_eq!(
        text_of(&app, r#"[data-testid="tokens-used"]"#).await,
        "1,234 tokens"
    );
    assert_eq!(
        text_of(&app, r#"[data-testid="context-meter"]"#).await,
        "context 1% (1,200 / 128,000)"
    );
    app.screenshot("attachments-image-sent").await.unwrap();
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_pdf_from_downloads_reaches_the_model_as_its_text_and_is_shown_after_a_restart() {
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&[
        "The invoice asks for 42 EUR.",
    ]))])
    .await
    .unwrap();
    let app = server.launch_app().await;
    let downloads = app.home().join("Downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    let invoice = downloads.join("invoice-2026.pdf");
    std::fs::write(
        &invoice,
        pdf_with_pages(&[&["Invoice 2026-117", "Total due: 42 EUR"]]),
    )
    .unwrap();

    attach(&app, &invoice).await;
    app.wait_for_xpath(
        r#"//*[@data-testid="attachment-chip" and @data-kind="file" and @data-state="ready" and contains(., "1 page")]//*[@data-testid="attachment-name" and .="invoice-2026.pdf"]"#,
    )
    .await
    .unwrap();
    app.send_prompt("How much is due?").await.unwrap();
    app.wait_for_xpath(
        r#"//*[@data-testid="message-assistant" and @data-state="done"]//*[@data-testid="assistant-text" and contains(., "42 EUR")]"#,
    )
    .await
    .unwrap();
    wait_until_idle(&app).await;

    let content = last_user_content(&server, 0);
    assert_eq!(content.len(), 2, "{content:?}");
    assert_eq!(
        content[0],
        json!({ "type": "text", "text": "How much is due?" })
    );
    let file_text = content[1]["text"].as_str().unwrap();
    assert!(
        file_text.starts_with("<attached-file name=\"invoice-2026.pdf\">\n"),
        "{file_text}"
    );
    assert!(file_text.contains("Total due: 42 EUR"), "{file_text}");
    assert!(file_text.ends_with("\n</attached-file>"), "{file_text}");
    app.screenshot("attachments-pdf-sent").await.unwrap();

    let home = app.terminate().await.unwrap();
    let again = server.launch_app_in(home).await;
    again
        .wait_for_css(r#"[data-testid="conversation-item"] [data-testid="conversation-open"]"#)
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    again
        .wait_for_xpath(
            r#"//*[@data-testid="message-user" and contains(., "How much is due?")]//*[@data-testid="user-attachment-file" and .="invoice-2026.pdf"]"#,
        )
        .await
        .unwrap();
    again
        .screenshot("attachments-pdf-after-restart")
        .await
        .unwrap();
    again.close().await.unwrap();
}

#[tokio::test]
async fn a_model_without_image_input_gets_the_notice_before_anything_is_sent() {
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&["unused"]))])
        .await
        .unwrap();
    let app = server.launch_app().await;
    let picture = app.home().join("Pictures/square.png");
    std::fs::create_dir_all(picture.parent().unwrap()).unwrap();
    std::fs::write(&picture, base64_decode(PNG_BASE64)).unwrap();
    app.find_test_id("composer-input")
        .await
        .unwrap()
        .send_keys("What is in this picture?")
        .await
        .unwrap();

    attach(&app, &picture).await;
    let notice = text_of(&app, r#"[data-testid="attachment-notice"]"#).await;
    assert!(
        notice.starts_with(&format!("{MODEL} does not read images")),
        "{notice}"
    );
    let send = app.find_test_id("send-button").await.unwrap();
    assert!(!send.is_enabled().await.unwrap(), "Send stays off");
    app.find_test_id("attachment-remove")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    app.wait_for_css(r#"[data-testid="send-button"]:not([disabled])"#)
        .await
        .unwrap();
    assert_eq!(server.requests().len(), 0, "nothing reached the model");
    let draft = app
        .find_test_id("composer-input")
        .await
        .unwrap()
        .prop("value")
        .await
        .unwrap();
    assert_eq!(
        draft.as_deref(),
        Some("What is in this picture?"),
        "the text stays"
    );
    app.close().await.unwrap();
}

fn base64_decode(data: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap()
}
