//! Steering and follow-ups in the real window against a loopback model: a steering message typed during a slow
//! answer reaches the model in the next request and shows in the transcript where the loop injected it; a
//! follow-up queued during a tool call runs after the answer; a cancelled chip is never sent; after Stop the
//! queued message stays (also across a reload of the window) and Send now sends it.

use std::time::{Duration, Instant};

use fantoccini::key::Key;
use pi_desktop_e2e::AppUnderTest;
use pi_test_support::openai::{
    OpenAiServer, Reply, text_chunks, text_delta, tool_call_chunks, unfinished_text_chunks,
};
use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::support::model_server::LaunchApp;

/// How long a condition the test polls for itself may take to hold.
const DEADLINE: Duration = Duration::from_secs(30);
/// How often the test looks again.
const POLL: Duration = Duration::from_millis(100);

const CHIP: &str = r#"[data-testid="queued-message"]"#;

/// XPath of an assistant answer in `state` whose text contains `text`.
fn answer_containing(state: &str, text: &str) -> String {
    format!(
        r#"//*[@data-testid="message-assistant" and @data-state="{state}"]//*[@data-testid="assistant-text" and contains(., "{text}")]"#
    )
}

/// Runs `script` in the page (with `arguments[0]` = `argument`) and returns its answer.
async fn run_script(app: &AppUnderTest, script: &str, argument: &str) -> Value {
    app.client()
        .execute(script, vec![Value::from(argument)])
        .await
        .unwrap()
}

/// How many elements match the CSS `selector` now (counted in the page, so a re-render cannot stale a handle).
async fn count(app: &AppUnderTest, selector: &str) -> usize {
    let counted = run_script(
        app,
        "return document.querySelectorAll(arguments[0]).length;",
        selector,
    )
    .await;
    usize::try_from(counted.as_u64().unwrap()).unwrap()
}

/// Polls until exactly `wanted` elements match `selector` (absence has no waiting helper), or panics with `what`.
async fn wait_for_count(app: &AppUnderTest, selector: &str, wanted: usize, what: &str) {
    let started = Instant::now();
    loop {
        let found = count(app, selector).await;
        if found == wanted {
            return;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "{what}: {found} elements match {selector} after {DEADLINE:?}, not {wanted}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// The transcript as the window shows it, in order: `user: …` and `assistant: …` (each trimmed).
async fn transcript(app: &AppUnderTest) -> Vec<String> {
    let items = run_script(
        app,
        "return [...document.querySelectorAll('[data-testid=\"message-user\"], [data-testid=\"message-assistant\"]')]\
           .map((item) => (item.dataset.testid === 'message-user' ? 'user: ' : 'assistant: ')\
             + (item.dataset.testid === 'message-user' ? item.textContent \
                : [...item.querySelectorAll('[data-testid=\"assistant-text\"]')].map((text) => text.textContent).join(''))\
               .trim());",
        "",
    )
    .await;
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item.as_str().unwrap().to_owned())
        .collect()
}

/// `(role, text)` of every message of a chat-completions request (the system prompt left out).
fn request_messages(request: &Value) -> Vec<(String, String)> {
    request["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] != "system")
        .map(|message| {
            let text = match &message["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts
                    .iter()
                    .filter_map(|part| part["text"].as_str())
                    .collect(),
                _ => String::new(),
            };
            (message["role"].as_str().unwrap().to_owned(), text)
        })
        .collect()
}

fn said(role: &str, text: &str) -> (String, String) {
    (role.to_owned(), text.to_owned())
}

/// Types `text` into the composer and presses `keys` (Enter steers during a run, Alt+Enter queues a follow-up).
async fn type_and_press(app: &AppUnderTest, text: &str, keys: &str) {
    app.find_test_id("composer-input")
        .await
        .unwrap()
        .send_keys(&format!("{text}{keys}"))
        .await
        .unwrap();
}

async fn wait_until_idle(app: &AppUnderTest, what: &str) {
    app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
        .await
        .expect(what);
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

async fn click(app: &AppUnderTest, selector: &str) {
    app.wait_for_css(selector)
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

#[tokio::test]
async fn a_steering_message_typed_during_a_slow_answer_reaches_the_next_request_and_shows_where_it_was_injected()
 {
    const PROMPT: &str = "What is in my Downloads?";
    const STEER: &str = "only the PDFs, please";
    let server = OpenAiServer::start(vec![
        Reply::Feed(unfinished_text_chunks(&["Looking at your files. "])),
        Reply::Stream(text_chunks(&["Only the PDFs: none here."])),
    ])
    .await
    .unwrap();
    let app = server.launch_app().await;

    app.send_prompt(PROMPT).await.unwrap();
    app.wait_for_xpath(&answer_containing("streaming", "Looking at your files."))
        .await
        .expect("the slow answer is not streaming");
    type_and_press(&app, STEER, &Key::Enter.to_string()).await;

    app.wait_for_css(r#"[data-testid="queued-message"][data-kind="steer"][data-status="waiting"]"#)
        .await
        .expect("the steering message shows as a chip while the answer streams");
    assert!(
        !app.find_test_id("send-button")
            .await
            .unwrap()
            .is_enabled()
            .await
            .unwrap(),
        "Send stays disabled while the agent streams"
    );
    assert_eq!(
        transcript(&app).await,
        vec![
            format!("user: {PROMPT}"),
            "assistant: Looking at your files.".to_owned()
        ],
        "not in the transcript before the loop takes it"
    );
    screenshot(&app, "steering-chip-while-streaming").await;
    assert_eq!(server.requests().len(), 1);

    server.feed(text_delta("I see three files."));
    server.finish_feed();
    app.wait_for_xpath(&answer_containing("done", "Only the PDFs: none here."))
        .await
        .expect("the answer to the steering message never came");
    wait_until_idle(&app, "the run never read idle").await;
    wait_for_count(&app, CHIP, 0, "the consumed chip is gone").await;

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        request_messages(&requests[1].body),
        vec![
            said("user", PROMPT),
            said("assistant", "Looking at your files. I see three files."),
            said("user", STEER),
        ]
    );
    assert_eq!(
        transcript(&app).await,
        vec![
            format!("user: {PROMPT}"),
            "assistant: Looking at your files. I see three files.".to_owned(),
            format!("user: {STEER}"),
            "assistant: Only the PDFs: none here.".to_owned(),
        ]
    );
    screenshot(&app, "steering-delivered").await;
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_follow_up_queued_during_a_tool_call_runs_after_the_answer() {
    const PROMPT: &str = "What did I download?";
    const FOLLOW_UP: &str = "then add up their sizes";
    let server = OpenAiServer::start(vec![
        Reply::Stream(tool_call_chunks(
            "call_list_1",
            "list_download_files",
            &["{}"],
        )),
        Reply::Stream(text_chunks(&["You downloaded nothing yet."])),
        Reply::Stream(text_chunks(&["Nothing to add up."])),
    ])
    .await
    .unwrap();
    // The built-in tools ask first, so the call waits on its card while the user queues the follow-up.
    let app = server
        .launch_app_with_settings(r#"{"askBeforeBuiltInTools": true}"#)
        .await;

    app.send_prompt(PROMPT).await.unwrap();
    app.wait_for_css(r#"[data-testid="tool-card"][data-state="awaiting_approval"] [data-testid="approval-prompt"]"#)
        .await
        .expect("the tool call waits on its card");
    type_and_press(&app, FOLLOW_UP, &format!("{}{}", Key::Alt, Key::Enter)).await;
    app.wait_for_css(r#"[data-testid="queued-message"][data-kind="follow_up"]"#)
        .await
        .expect("Alt+Enter queues a follow-up chip during the tool call");
    screenshot(&app, "follow-up-chip-during-a-tool-call").await;
    click(&app, r#"[data-testid="approve-once"]"#).await;

    app.wait_for_xpath(&answer_containing("done", "Nothing to add up."))
        .await
        .expect("the follow-up never ran");
    wait_until_idle(&app, "the run never read idle").await;
    wait_for_count(&app, CHIP, 0, "the consumed chip is gone").await;
    let requests = server.requests();
    assert_eq!(
        requests.len(),
        3,
        "the call, its answer, then the follow-up"
    );
    let second = request_messages(&requests[1].body);
    assert!(
        second.iter().all(|(_, text)| text != FOLLOW_UP),
        "not delivered while the agent still had work: {second:?}"
    );
    let third = request_messages(&requests[2].body);
    assert_eq!(
        third[third.len() - 2..],
        [
            said("assistant", "You downloaded nothing yet."),
            said("user", FOLLOW_UP)
        ]
    );
    assert_eq!(
        transcript(&app).await[2..],
        [
            "assistant: You downloaded nothing yet.".to_owned(),
            format!("user: {FOLLOW_UP}"),
            "assistant: Nothing to add up.".to_owned(),
        ]
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn a_cancelled_chip_is_never_sent() {
    let server = OpenAiServer::start(vec![
        Reply::Feed(unfinished_text_chunks(&["Thinking about it. "])),
        Reply::Stream(text_chunks(&["This request must never be made."])),
    ])
    .await
    .unwrap();
    let app = server.launch_app().await;

    app.send_prompt("Tell me about my Documents").await.unwrap();
    app.wait_for_xpath(&answer_containing("streaming", "Thinking about it."))
        .await
        .unwrap();
    type_and_press(&app, "forget what I said", &Key::Enter.to_string()).await;
    app.wait_for_css(CHIP).await.unwrap();
    click(
        &app,
        r#"[data-testid="queued-message"] [data-testid="queued-cancel"]"#,
    )
    .await;
    wait_for_count(&app, CHIP, 0, "the cancelled chip is gone").await;

    server.finish_feed();
    app.wait_for_xpath(&answer_containing("done", "Thinking about it."))
        .await
        .unwrap();
    wait_until_idle(&app, "the run never read idle").await;
    assert_eq!(server.requests().len(), 1, "nothing was sent for the chip");
    assert_eq!(
        transcript(&app).await,
        vec![
            "user: Tell me about my Documents".to_owned(),
            "assistant: Thinking about it.".to_owned()
        ]
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn after_stop_a_queued_message_stays_through_a_reload_and_send_now_sends_it() {
    const KEPT: &str = "look in the Desktop folder instead";
    let server = OpenAiServer::start(vec![
        Reply::Hold(unfinished_text_chunks(&[
            "Searching the Documents folder. ",
        ])),
        Reply::Stream(text_chunks(&["Your Desktop is empty."])),
    ])
    .await
    .unwrap();
    let app = server.launch_app().await;

    app.send_prompt("Where is my invoice?").await.unwrap();
    app.wait_for_xpath(&answer_containing(
        "streaming",
        "Searching the Documents folder.",
    ))
    .await
    .unwrap();
    type_and_press(&app, KEPT, &Key::Enter.to_string()).await;
    app.wait_for_css(CHIP).await.unwrap();
    click(&app, r#"[data-testid="stop-button"]:not([disabled])"#).await;
    app.wait_for_css(r#"[data-testid="queued-message"][data-status="held"]"#)
        .await
        .expect("after Stop the queued message stays, held");
    wait_until_idle(&app, "the stopped run never read idle").await;

    run_script(&app, "window.__beforeReload = true; return true;", "").await;
    app.client().refresh().await.unwrap();
    let started = Instant::now();
    while run_script(
        &app,
        "return window.__beforeReload === undefined && document.readyState === 'complete';",
        "",
    )
    .await
        != Value::Bool(true)
    {
        assert!(started.elapsed() < DEADLINE, "the page did not reload");
        tokio::time::sleep(POLL).await;
    }
    app.wait_for_xpath(&format!(
        r#"//*[@data-testid="queued-message" and @data-status="held" and contains(., "{KEPT}")]"#
    ))
    .await
    .expect("the held message is back after the reload");
    screenshot(&app, "held-message-after-reload").await;

    click(
        &app,
        r#"[data-testid="queued-message"] [data-testid="queued-send"]"#,
    )
    .await;
    app.wait_for_xpath(&answer_containing("done", "Your Desktop is empty."))
        .await
        .expect("Send now never ran the held message");
    wait_until_idle(&app, "the run never read idle").await;
    wait_for_count(&app, CHIP, 0, "the sent chip is gone").await;
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let sent = request_messages(&requests[1].body);
    assert_eq!(sent.last(), Some(&said("user", KEPT)), "{sent:?}");
    app.close().await.unwrap();
}
