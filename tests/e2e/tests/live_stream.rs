//! The window's one live stream of every conversation: reloading the page mid-answer shows the answer so far at
//! once (nothing more arrives from the model until it is on screen) and the answer keeps streaming to its end,
//! nothing lost or doubled; and two conversations answer at once, each transcript showing only its own text,
//! the sidebar marking the one still answering, and reopening it showing its text so far at once.

use std::time::{Duration, Instant};

use fantoccini::Locator;
use pi_desktop_e2e::AppUnderTest;
use pi_test_support::openai::{
    OpenAiServer, Reply, text_chunks, text_delta, unfinished_text_chunks,
};
use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::support::model_server::LaunchApp;

/// How long a condition the test polls for itself may take to hold.
const DEADLINE: Duration = Duration::from_secs(30);
/// How often the test looks again.
const POLL: Duration = Duration::from_millis(100);

const USER: &str = r#"[data-testid="message-user"]"#;
const ASSISTANT: &str = r#"[data-testid="message-assistant"]"#;
const STREAMING_DOT: &str = r#"[data-testid="conversation-streaming"]"#;

/// XPath of an assistant answer in `state` whose text contains `text`.
fn answer_containing(state: &str, text: &str) -> String {
    format!(
        r#"//*[@data-testid="message-assistant" and @data-state="{state}"]//*[@data-testid="assistant-text" and contains(., "{text}")]"#
    )
}

/// XPath of the sidebar item of the conversation titled `title` (the title is its first prompt).
fn sidebar_item(title: &str) -> String {
    format!(
        r#"//*[@data-testid="conversation-item"][.//*[@data-testid="conversation-open" and @title="{title}"]]"#
    )
}

/// How many elements match `locator` now. Counted in the page: element handles of a list that re-renders
/// meanwhile would go stale.
async fn count(app: &AppUnderTest, locator: Locator<'_>) -> usize {
    let (script, query) = match locator {
        Locator::Css(selector) => (
            "return document.querySelectorAll(arguments[0]).length;",
            selector,
        ),
        Locator::XPath(xpath) => (
            "return document.evaluate(arguments[0], document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null).snapshotLength;",
            xpath,
        ),
        other => panic!("count supports CSS and XPath locators, not {other:?}"),
    };
    let counted = app
        .client()
        .execute(script, vec![serde_json::Value::from(query)])
        .await
        .unwrap();
    usize::try_from(counted.as_u64().unwrap()).unwrap()
}

/// Polls until exactly `wanted` elements match `locator` (for absence, which has no waiting helper), or panics
/// with `what` after [`DEADLINE`].
async fn wait_for_count(app: &AppUnderTest, locator: Locator<'_>, wanted: usize, what: &str) {
    let started = Instant::now();
    loop {
        let found = count(app, locator).await;
        if found == wanted {
            return;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "{what}: {found} elements match {locator:?} after {DEADLINE:?}, not {wanted}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// Polls until `script` returns `true`, or panics with `what` after [`DEADLINE`].
async fn wait_for_script(app: &AppUnderTest, script: &str, what: &str) {
    let started = Instant::now();
    loop {
        // While the page reloads, a script may fail: that is "not yet".
        let answer = app.client().execute(script, Vec::new()).await;
        if matches!(answer, Ok(Value::Bool(true))) {
            return;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "{what} after {DEADLINE:?}; last answer: {answer:?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// The trimmed text of the one finished answer.
async fn done_answer_text(app: &AppUnderTest) -> String {
    app.wait_for_css(
        r#"[data-testid="message-assistant"][data-state="done"] [data-testid="assistant-text"]"#,
    )
    .await
    .expect("no finished answer text")
    .text()
    .await
    .unwrap()
    .trim()
    .to_owned()
}

/// The whole text of the transcript now.
async fn transcript_text(app: &AppUnderTest) -> String {
    app.find_test_id("message-list")
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

async fn wait_until_idle(app: &AppUnderTest, what: &str) {
    app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
        .await
        .expect(what);
}

#[tokio::test]
async fn reloading_the_window_mid_answer_shows_the_answer_so_far_and_it_keeps_streaming_to_done() {
    const PROMPT: &str = "Answer me in two parts";
    const FIRST: &str = "First part of the answer. ";
    const REST: &str = "Second part.";
    let server = OpenAiServer::start(vec![Reply::Feed(unfinished_text_chunks(&[]))])
        .await
        .unwrap();
    let app = server.launch_app().await;

    app.send_prompt(PROMPT).await.unwrap();
    app.wait_for_text("message-user", PROMPT)
        .await
        .expect("the prompt is not shown after Send");
    server.feed(text_delta(FIRST));
    app.wait_for_xpath(&answer_containing("streaming", FIRST.trim()))
        .await
        .expect("the first part of the answer is not shown before the reload");

    // A mark on the old page: gone once the page really reloaded.
    app.client()
        .execute("window.__beforeReload = true; return true;", Vec::new())
        .await
        .unwrap();
    app.client().refresh().await.unwrap();
    wait_for_script(
        &app,
        "return window.__beforeReload === undefined && document.readyState === 'complete';",
        "the page did not reload",
    )
    .await;

    // Nothing more is fed: what the window shows now came from the run in progress.
    app.wait_for_text("message-user", PROMPT)
        .await
        .expect("after the reload the prompt is not shown");
    app.wait_for_xpath(&answer_containing("streaming", FIRST.trim()))
        .await
        .expect(
            "after the reload the answer so far is not shown as streaming (nothing more was fed)",
        );
    app.screenshot("live-stream-reloaded").await.unwrap();

    server.feed(text_delta(REST));
    server.finish_feed();
    app.wait_for_xpath(&answer_containing("done", REST))
        .await
        .expect(
            "after the reload the rest of the answer never arrived, or the answer never finished",
        );
    wait_until_idle(&app, "the run never read idle after the answer finished").await;
    assert_eq!(
        done_answer_text(&app).await,
        "First part of the answer. Second part.",
        "the answer lost or doubled text across the reload"
    );
    assert_eq!(count(&app, Locator::Css(USER)).await, 1, "user messages");
    assert_eq!(
        count(&app, Locator::Css(ASSISTANT)).await,
        1,
        "assistant messages"
    );
    app.wait_for_css(r#"[data-testid="send-button"]:not([disabled])"#)
        .await
        .expect("Send is not enabled again after the answer finished");
    assert_eq!(server.requests().len(), 1, "one model request");
    app.close().await.unwrap();
}

#[tokio::test]
async fn two_conversations_answer_at_once_and_each_shows_only_its_own_text() {
    const QUESTION_A: &str = "Question A";
    const QUESTION_B: &str = "Question B";
    const ALPHA: &str = "Alpha answer so far. ";
    const ALPHA_REST: &str = "And the rest.";
    let server = OpenAiServer::start(vec![
        Reply::Feed(unfinished_text_chunks(&[])),
        Reply::Stream(text_chunks(&["Beta answer."])),
    ])
    .await
    .unwrap();
    let app = server.launch_app().await;

    // A starts answering and stays open.
    app.send_prompt(QUESTION_A).await.unwrap();
    app.wait_for_text("message-user", QUESTION_A)
        .await
        .expect("A's prompt is not shown after Send");
    server.feed(text_delta(ALPHA));
    app.wait_for_xpath(&answer_containing("streaming", ALPHA.trim()))
        .await
        .expect("A's answer so far is not shown");

    // B, while A answers.
    app.wait_for_css(r#"[data-testid="new-conversation-button"]:not([disabled])"#)
        .await
        .expect("New conversation is not enabled while conversation A answers")
        .click()
        .await
        .unwrap();
    wait_for_count(
        &app,
        Locator::Css(USER),
        0,
        "the new conversation still shows A's transcript",
    )
    .await;
    app.wait_for_css(r#"[data-testid="send-button"]:not([disabled])"#)
        .await
        .expect("Send is not enabled in the new conversation while A answers");
    app.send_prompt(QUESTION_B).await.unwrap();
    app.wait_for_text("message-user", QUESTION_B)
        .await
        .expect("B's prompt is not shown after Send");
    app.wait_for_xpath(&answer_containing("done", "Beta answer."))
        .await
        .expect("B's answer is not shown finished while A answers");
    let shown_in_b = transcript_text(&app).await;
    assert!(
        !shown_in_b.contains("Alpha") && !shown_in_b.contains(QUESTION_A),
        "B's transcript shows A's text: {shown_in_b}"
    );
    assert_eq!(done_answer_text(&app).await, "Beta answer.");
    assert_eq!(
        count(&app, Locator::Css(USER)).await,
        1,
        "user messages in B"
    );
    assert_eq!(
        count(&app, Locator::Css(ASSISTANT)).await,
        1,
        "assistant messages in B"
    );

    // The sidebar marks A, and only A, as answering.
    let a_item = sidebar_item(QUESTION_A);
    let a_dot = format!(r#"{a_item}//*[@data-testid="conversation-streaming"]"#);
    app.wait_for_xpath(&a_dot)
        .await
        .expect("the sidebar does not mark A as answering");
    wait_for_count(
        &app,
        Locator::Css(STREAMING_DOT),
        1,
        "the sidebar marks more than A as answering",
    )
    .await;

    // Back to A: its text so far at once (nothing more is fed), none of B's.
    app.wait_for_xpath(&format!(r#"{a_item}//*[@data-testid="conversation-open"]"#))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    app.wait_for_text("message-user", QUESTION_A)
        .await
        .expect("opening A again does not show its prompt");
    app.wait_for_xpath(&answer_containing("streaming", ALPHA.trim()))
        .await
        .expect(
            "opening A again does not show its answer so far as streaming (nothing more was fed)",
        );
    let shown_in_a = transcript_text(&app).await;
    assert!(
        !shown_in_a.contains("Beta") && !shown_in_a.contains(QUESTION_B),
        "A's transcript shows B's text: {shown_in_a}"
    );
    app.screenshot("live-stream-two-conversations")
        .await
        .unwrap();

    server.feed(text_delta(ALPHA_REST));
    server.finish_feed();
    app.wait_for_xpath(&answer_containing("done", ALPHA_REST))
        .await
        .expect("the rest of A's answer never arrived, or A never finished");
    wait_until_idle(&app, "the run never read idle after A finished").await;
    assert_eq!(
        done_answer_text(&app).await,
        "Alpha answer so far. And the rest.",
        "A's answer lost or doubled text"
    );
    assert_eq!(
        count(&app, Locator::Css(USER)).await,
        1,
        "user messages in A"
    );
    assert_eq!(
        count(&app, Locator::Css(ASSISTANT)).await,
        1,
        "assistant messages in A"
    );
    wait_for_count(
        &app,
        Locator::Css(STREAMING_DOT),
        0,
        "the sidebar still marks a conversation as answering after both finished",
    )
    .await;
    assert_eq!(
        server.requests().len(),
        2,
        "one model request per conversation"
    );
    app.close().await.unwrap();
}
