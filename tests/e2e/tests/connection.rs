//! A connection that never hangs or fails silently, in the real window against a loopback model server: a model
//! that goes silent mid-answer is ended by the idle timeout with what arrived kept and Send back; a 429 with
//! `retry-after` is retried once, shown in the bubble, and ends in one answer; a refused key is explained in the
//! window's language.

use pi_desktop_e2e::AppUnderTest;
use pi_test_support::openai::{OpenAiServer, Reply, text_chunks, unfinished_text_chunks};
use pi_test_support::{Response, Stream};
use serde_json::json;

use crate::support::model_server::LaunchApp;

/// The shortest idle timeout the settings take, so the test waits seconds, not the default two minutes.
const IDLE_TIMEOUT_SECONDS: u32 = 5;

async fn wait_until_idle(app: &AppUnderTest) {
    app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
        .await
        .unwrap();
}

async fn send_enabled(app: &AppUnderTest) -> bool {
    app.find_test_id("send-button")
        .await
        .unwrap()
        .is_enabled()
        .await
        .unwrap()
}

fn chat_request_count(server: &OpenAiServer) -> usize {
    server
        .requests()
        .iter()
        .filter(|request| request.path.ends_with("/chat/completions"))
        .count()
}

#[tokio::test]
async fn a_model_gone_silent_is_ended_by_the_idle_timeout_with_the_partial_answer_kept() {
    let server = OpenAiServer::start(vec![Reply::Hold(unfinished_text_chunks(&[
        "The first half of the answer",
    ]))])
    .await
    .unwrap();
    let app = server
        .launch_app_with_settings(&format!(
            r#"{{"idleTimeoutSeconds": {IDLE_TIMEOUT_SECONDS}}}"#
        ))
        .await;

    app.send_prompt("Tell me everything").await.unwrap();
    let failed = app
        .wait_for_css(r#"[data-testid="message-assistant"][data-state="error"]"#)
        .await
        .unwrap();
    wait_until_idle(&app).await;

    let kept = failed
        .find(fantoccini::Locator::Css(
            r#"[data-testid="assistant-text"]"#,
        ))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        kept.contains("The first half of the answer"),
        "the partial answer is gone: {kept}"
    );
    let error = failed
        .find(fantoccini::Locator::Css(
            r#"[data-testid="assistant-error"]"#,
        ))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        error.contains(&format!("{IDLE_TIMEOUT_SECONDS}.0 s (idle timeout)"))
            && error.contains("stopped sending in the middle of the answer"),
        "the error does not say the model went silent: {error}"
    );
    assert!(send_enabled(&app).await, "Send stays off after the timeout");
    app.find_test_id("retry-button").await.unwrap();
    app.screenshot("idle-timeout").await.unwrap();
    assert_eq!(
        chat_request_count(&server),
        1,
        "a started answer is not retried silently"
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_429_with_retry_after_is_retried_in_view_and_ends_in_one_answer() {
    let rate_limited = Response::json(
        429,
        &json!({"error": {"message": "Rate limit reached", "type": "rate_limit_error"}}),
    )
    .header("retry-after", "1");
    let answer: Stream = text_chunks(&["Here is the answer ", "after one retry."])
        .iter()
        .fold(Stream::sse(), |stream, chunk| {
            stream.write(format!("data: {chunk}\n\n"))
        })
        .write("data: [DONE]\n\n");
    let server = OpenAiServer::start(vec![
        Reply::Response(rate_limited),
        Reply::Response(Response::stream(answer)),
    ])
    .await
    .unwrap();
    let app = server.launch_app().await;

    app.send_prompt("Are you there?").await.unwrap();
    let retry = app
        .wait_for_css(r#"[data-testid="retry-line"][data-attempt="1"]"#)
        .await
        .unwrap();
    let shown = retry.text().await.unwrap();
    assert!(shown.contains("(1/3)"), "the retry line: {shown}");
    app.screenshot("retrying-after-429").await.unwrap();

    app.wait_for_xpath(
        r#"//*[@data-testid="message-assistant" and @data-state="done"]//*[@data-testid="assistant-text" and contains(., "after one retry.")]"#,
    )
    .await
    .unwrap();
    wait_until_idle(&app).await;
    let answers = app
        .client()
        .find_all(fantoccini::Locator::Css(
            r#"[data-testid="message-assistant"]"#,
        ))
        .await
        .unwrap();
    assert_eq!(
        answers.len(),
        1,
        "one answer, not a failed one and a second"
    );
    let lines = app
        .client()
        .find_all(fantoccini::Locator::Css(r#"[data-testid="retry-line"]"#))
        .await
        .unwrap();
    assert!(lines.is_empty(), "the retry line stays after the answer");
    assert_eq!(chat_request_count(&server), 2);
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_refused_key_is_explained_in_chinese_when_the_window_is_chinese() {
    let server = OpenAiServer::start(vec![Reply::Status(
        401,
        json!({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}),
    )])
    .await
    .unwrap();
    let app = server
        .launch_app_with_settings(r#"{"language": "zh"}"#)
        .await;

    app.send_prompt("你好").await.unwrap();
    let failed = app
        .wait_for_css(r#"[data-testid="message-assistant"][data-state="error"] [data-testid="assistant-error"]"#)
        .await
        .unwrap();
    wait_until_idle(&app).await;
    let text = failed.text().await.unwrap();
    assert!(
        text.contains("回答失败") && text.contains("API 密钥"),
        "the failure is not explained in Chinese: {text}"
    );
    assert!(
        text.contains("Incorrect API key provided"),
        "the provider's own words are not kept as the detail: {text}"
    );
    assert_eq!(
        chat_request_count(&server),
        1,
        "a refused key is not retried"
    );
    app.screenshot("provider-401-zh").await.unwrap();
    app.close().await.unwrap();
}
