//! Versions and branches of messages in the real window against a loopback model: regenerate an answer and
//! switch between its versions (and the next request carries the version shown), edit a question into a new
//! branch, and continue an answer cut off by the length limit into one answer.

use pi_desktop_e2e::AppUnderTest;
use pi_test_support::openai::{MODEL, OpenAiServer, Reply, text_chunks, unfinished_text_chunks};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::model_server::LaunchApp;

async fn wait_until_idle(app: &AppUnderTest) {
    app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
        .await
        .unwrap();
}

/// Each message of a chat request as `role: text`.
fn request_messages(request: &Value) -> Vec<String> {
    request["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|message| message["role"] != "system")
        .map(|message| {
            let text = match &message["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|part| part["text"].as_str())
                    .collect::<String>(),
                other => other.to_string(),
            };
            format!("{}: {text}", message["role"].as_str().unwrap_or_default())
        })
        .collect()
}

/// The answer with this text, in the given state.
fn answer(state: &str, text: &str) -> String {
    format!(
        r#"//*[@data-testid="message-assistant" and @data-state="{state}"]//*[@data-testid="assistant-text" and normalize-space(.)="{text}"]"#
    )
}

/// The navigator of an answer or a question (`kind`) reading `label`.
fn navigator(kind: &str, label: &str) -> String {
    format!(
        r#"//*[contains(@class, "{kind}-actions")]//*[@data-testid="version-label" and normalize-space(.)="{label}"]"#
    )
}

/// Saves a screenshot once the page has painted what the DOM shows now (two animation frames later).
async fn screenshot(app: &AppUnderTest, name: &str) {
    app.client()
        .execute_async(
            "const done = arguments[arguments.length - 1];\
             requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
            Vec::new(),
        )
        .await
        .unwrap();
    app.screenshot(name).await.unwrap();
}

/// The `count` of elements matching `selector` right now.
async fn count(app: &AppUnderTest, selector: &str) -> usize {
    app.client()
        .find_all(fantoccini::Locator::Css(selector))
        .await
        .unwrap()
        .len()
}

#[tokio::test]
async fn a_regenerated_answer_is_version_2_of_2_and_the_next_request_carries_the_version_shown() {
    let server = OpenAiServer::start(vec![
        Reply::Stream(text_chunks(&["The kettle is ", "on the shelf."])),
        Reply::Stream(text_chunks(&["The kettle is ", "next to the sink."])),
        Reply::Stream(text_chunks(&["The tea is in the tin."])),
    ])
    .await
    .unwrap();
    let app = server.launch_app().await;

    app.send_prompt("Where is my kettle?").await.unwrap();
    app.wait_for_xpath(&answer("done", "The kettle is on the shelf."))
        .await
        .unwrap();
    wait_until_idle(&app).await;
    app.find_test_id("regenerate-button")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();

    app.wait_for_xpath(&answer("done", "The kettle is next to the sink."))
        .await
        .unwrap();
    app.wait_for_xpath(&navigator("answer", "2/2"))
        .await
        .unwrap();
    wait_until_idle(&app).await;
    screenshot(&app, "message-versions").await;
    let regenerate_request = &server.requests()[1].body;
    assert_eq!(
        request_messages(regenerate_request),
        vec!["user: Where is my kettle?".to_owned()],
        "the regenerated answer is asked for from the question alone"
    );

    app.find_test_id("version-prev")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    app.wait_for_xpath(&navigator("answer", "1/2"))
        .await
        .unwrap();
    app.wait_for_xpath(&answer("done", "The kettle is on the shelf."))
        .await
        .unwrap();
    assert_eq!(count(&app, r#"[data-testid="message-assistant"]"#).await, 1);

    app.send_prompt("And the tea?").await.unwrap();
    app.wait_for_xpath(&answer("done", "The tea is in the tin."))
        .await
        .unwrap();
    wait_until_idle(&app).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        request_messages(&requests[2].body),
        vec![
            "user: Where is my kettle?".to_owned(),
            "assistant: The kettle is on the shelf.".to_owned(),
            "user: And the tea?".to_owned(),
        ],
        "the next request follows the version shown"
    );

    // The versions and the version shown are kept: after a restart the navigator still reads 1/2.
    let home = app.terminate().await.unwrap();
    let again = server.launch_app_in(home).await;
    again
        .wait_for_xpath(&navigator("answer", "1/2"))
        .await
        .unwrap();
    again
        .wait_for_xpath(&answer("done", "The tea is in the tin."))
        .await
        .unwrap();
    again.close().await.unwrap();
}

#[tokio::test]
async fn an_edited_question_starts_a_branch_and_the_old_branch_stays_reachable() {
    let server = OpenAiServer::start(vec![
        Reply::Stream(text_chunks(&["The kettle is on the shelf."])),
        Reply::Stream(text_chunks(&["The tea is in the tin."])),
    ])
    .await
    .unwrap();
    let app = server.launch_app().await;

    app.send_prompt("Where is my kettle?").await.unwrap();
    app.wait_for_xpath(&answer("done", "The kettle is on the shelf."))
        .await
        .unwrap();
    wait_until_idle(&app).await;
    app.find_test_id("edit-button")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let input = app.find_test_id("edit-input").await.unwrap();
    input.clear().await.unwrap();
    input.send_keys("Where is my tea?").await.unwrap();
    app.find_test_id("edit-send")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();

    app.wait_for_xpath(&answer("done", "The tea is in the tin."))
        .await
        .unwrap();
    app.wait_for_text("message-user", "Where is my tea?")
        .await
        .unwrap();
    app.wait_for_xpath(&navigator("question", "2/2"))
        .await
        .unwrap();
    wait_until_idle(&app).await;
    assert_eq!(count(&app, r#"[data-testid="message-user"]"#).await, 1);
    assert_eq!(
        request_messages(&server.requests()[1].body),
        vec!["user: Where is my tea?".to_owned()],
        "the new branch starts from the edited question"
    );
    screenshot(&app, "message-branch").await;

    app.find_test_id("version-prev")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    app.wait_for_xpath(&navigator("question", "1/2"))
        .await
        .unwrap();
    app.wait_for_text("message-user", "Where is my kettle?")
        .await
        .unwrap();
    app.wait_for_xpath(&answer("done", "The kettle is on the shelf."))
        .await
        .unwrap();
    app.close().await.unwrap();
}

#[tokio::test]
async fn an_answer_cut_off_by_the_length_limit_is_continued_into_one_answer() {
    let mut cut_off = unfinished_text_chunks(&["Counting: one, two, th"]);
    cut_off.push(json!({
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": MODEL,
        "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]
    }));
    let server = OpenAiServer::start(vec![
        Reply::Stream(cut_off),
        Reply::Stream(text_chunks(&["ree, four."])),
    ])
    .await
    .unwrap();
    let app = server.launch_app().await;

    app.send_prompt("Count to four").await.unwrap();
    app.wait_for_xpath(&answer("truncated", "Counting: one, two, th"))
        .await
        .unwrap();
    wait_until_idle(&app).await;
    app.find_test_id("truncated-label").await.unwrap();
    app.find_test_id("continue-button")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();

    app.wait_for_xpath(&answer("done", "Counting: one, two, three, four."))
        .await
        .unwrap();
    wait_until_idle(&app).await;
    assert_eq!(
        count(&app, r#"[data-testid="message-assistant"]"#).await,
        1,
        "the continuation is shown as one answer"
    );
    assert_eq!(count(&app, r#"[data-testid="continue-button"]"#).await, 0);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let continued = request_messages(&requests[1].body);
    assert_eq!(
        continued[..2],
        [
            "user: Count to four".to_owned(),
            "assistant: Counting: one, two, th".to_owned()
        ]
    );
    assert!(
        continued[2]
            .starts_with("user: Your previous answer was cut off by the output length limit."),
        "{continued:?}"
    );
    app.close().await.unwrap();
}
