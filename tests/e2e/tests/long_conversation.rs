//! A conversation far longer than a screen, written through the app's own store before the app starts: opened
//! from the sidebar it shows its last answer, and its first question is there when the transcript is scrolled to
//! the top (the window opens a long transcript from its end and loads its beginning after). Dragged down at
//! screenfuls a frame, as a drag of the scrollbar goes, the rows coming into view are placeholders; once the drag
//! stops, the rows in view are themselves again.

use desktop_host::store::Store;
use pi_test_support::openai::OpenAiServer;
use serde_json::{Value, json};
use std::time::Duration;

use crate::support::model_server::LaunchApp;
use crate::support::page_poll::poll;
use crate::support::stored_history::{assistant, database_in, tool_result, user};

/// Well over what the window asks for at first (`OPENED_FROM_END` in `ui/src/ipc/conversations.ts`).
const EXCHANGES: usize = 600;
const TITLE: &str = "Everything about my Downloads";
/// The oldest message's time (2026-01-01); each exchange is a minute later.
const STARTED_MS: i64 = 1_767_225_600_000;

/// Exchange `index`: a question and its answer, every third one with a tool call and its result in between.
fn exchange(index: usize) -> Vec<Value> {
    let at = STARTED_MS + i64::try_from(index).unwrap() * 60_000;
    let question = if index == 0 {
        format!("{TITLE}: question 0")
    } else {
        format!("Question {index}")
    };
    let answer = assistant(
        json!([{"type": "text", "text": format!("Answer {index}")}]),
        "stop",
        at,
    );
    if index % 3 != 2 {
        return vec![user(&question, at), answer];
    }
    let call = format!("call_{index}");
    vec![
        user(&question, at),
        assistant(
            json!([{"type": "toolCall", "id": call, "name": "list_downloads", "arguments": {}}]),
            "toolUse",
            at,
        ),
        tool_result(&call, "list_downloads", &format!("report-{index}.pdf"), at),
        answer,
    ]
}

/// A home with the long conversation and a short newer one, which the app shows at start.
fn home_with_long_conversation() -> tempfile::TempDir {
    let home = pi_desktop_e2e::new_home().unwrap();
    let store = Store::open(&database_in(home.path())).unwrap().store;
    let long = store.create_conversation(Some("test-model")).unwrap();
    for message in (0..EXCHANGES).flat_map(exchange) {
        store.append_message(&long.id, &message).unwrap();
    }
    let short = store.create_conversation(Some("test-model")).unwrap();
    store
        .append_message(&short.id, &user("Anything new?", STARTED_MS))
        .unwrap();
    home
}

/// Scrolls the transcript to its top once a frame until a user message holds `text` (true) or 20 s passed
/// (false): rows far from the view are not in the page, and the beginning may arrive while it scrolls.
const SCROLL_TO_TOP_UNTIL: &str = r#"
const [text, done] = [arguments[0], arguments[arguments.length - 1]];
const list = document.querySelector('[data-testid="message-list"]');
const deadline = performance.now() + 20000;
const step = () => {
  list.scrollTop = 0;
  const found = [...document.querySelectorAll('[data-testid="message-user"]')]
    .some((element) => element.textContent.includes(text));
  if (found || performance.now() > deadline) done(found);
  else requestAnimationFrame(step);
};
step();
"#;

/// Moves the transcript 2,000 px a frame (down, and back up from the bottom; a seek even with frames 70 ms apart on a
/// busy machine) until `window.__dragStop` is set or 600 frames went by; `window.__drag` counts the frames and those
/// with a placeholder row in view. Each move is a task queued from the frame, so it lands between two frames as a
/// drag of the scrollbar does and the next frame's scroll event reports it. Made inside the frame (after its scroll
/// events), the virtualizer's correction for rows measured above the view, which starts from the offset it last saw,
/// undid two moves in three, and the view never went fast enough to seek.
const DRAG: &str = r#"
const list = document.querySelector('[data-testid="message-list"]');
window.__dragStop = false;
window.__drag = { frames: 0, withPlaceholders: 0, stopped: false };
let direction = 1;
const frame = () => {
  const view = list.getBoundingClientRect();
  const inView = [...list.querySelectorAll('[data-placeholder]')].some((row) => {
    const box = row.getBoundingClientRect();
    return box.bottom > view.top && box.top < view.bottom;
  });
  if (inView) window.__drag.withPlaceholders += 1;
  if (window.__dragStop || window.__drag.frames >= 600) {
    window.__drag.stopped = true;
    return;
  }
  window.__drag.frames += 1;
  setTimeout(() => {
    if (list.scrollTop + list.clientHeight >= list.scrollHeight - 2000) direction = -1;
    if (list.scrollTop <= 2000) direction = 1;
    list.scrollTop += 2000 * direction;
    requestAnimationFrame(frame);
  }, 0);
};
requestAnimationFrame(frame);
"#;

/// The questions wholly in the transcript's view once no placeholder row is left in it, else null.
const QUESTIONS_IN_VIEW: &str = r#"
const list = document.querySelector('[data-testid="message-list"]');
if (list.querySelector('[data-placeholder]') !== null) return null;
const view = list.getBoundingClientRect();
const questions = [...list.querySelectorAll('[data-testid="message-user"]')].filter((message) => {
  const box = message.getBoundingClientRect();
  return box.top >= view.top && box.bottom <= view.bottom;
});
return questions.length === 0 ? null : questions.map((message) => message.textContent);
"#;

#[tokio::test]
async fn a_long_conversation_opens_at_its_end_and_keeps_all_of_its_beginning() {
    let server = OpenAiServer::start(vec![]).await.unwrap();
    let app = server.launch_app_in(home_with_long_conversation()).await;

    app.wait_for_xpath(&format!(
        r#"//*[@data-testid="conversation-item"][contains(., "{TITLE}")]//*[@data-testid="conversation-open"]"#
    ))
    .await
    .unwrap()
    .click()
    .await
    .unwrap();
    let last = EXCHANGES - 1;
    app.wait_for_xpath(&format!(
        r#"//*[@data-testid="message-assistant"][contains(., "Answer {last}")]"#
    ))
    .await
    .unwrap();
    app.screenshot("long-conversation-end").await.unwrap();

    let found = app
        .client()
        .execute_async(
            SCROLL_TO_TOP_UNTIL,
            vec![Value::from(format!("{TITLE}: question 0"))],
        )
        .await
        .unwrap();
    assert_eq!(
        found,
        json!(true),
        "the first question is at the transcript's top"
    );
    app.wait_for_xpath(r#"//*[@data-testid="message-assistant"][contains(., "Answer 0")]"#)
        .await
        .unwrap();
    app.screenshot("long-conversation-beginning").await.unwrap();

    app.client().execute(DRAG, vec![]).await.unwrap();
    poll(
        &app,
        "return window.__drag.frames >= 20 ? true : null;",
        Duration::from_secs(20),
    )
    .await;
    app.client()
        .execute("window.__dragStop = true;", vec![])
        .await
        .unwrap();
    // The rows come back once no scroll came for a while (150 ms): likely still placeholders here.
    app.screenshot("long-conversation-dragged").await.unwrap();
    let drag = poll(
        &app,
        "return window.__drag.stopped ? window.__drag : null;",
        Duration::from_secs(20),
    )
    .await;
    assert!(
        drag["withPlaceholders"].as_u64().unwrap_or(0) > 0,
        "the drag showed placeholders: {drag}"
    );
    let questions = poll(&app, QUESTIONS_IN_VIEW, Duration::from_secs(10)).await;
    let is_question = |shown: &Value| {
        shown
            .as_str()
            .is_some_and(|text| text.contains("Question ") || text.contains(TITLE))
    };
    assert!(
        questions
            .as_array()
            .is_some_and(|shown| shown.iter().all(is_question)),
        "the rows in view after the drag are the conversation's: {questions}"
    );
    app.screenshot("long-conversation-after-drag")
        .await
        .unwrap();
    app.close().await.unwrap();
}
