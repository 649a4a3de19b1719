//! A long conversation in the real window, reported and never asserted: a conversation of 10,000 messages, 1,000
//! of them tool calls with their results, is written through the app's own store before the app starts; then the
//! time from a click on it in the sidebar to its last question and to its last answer's text on screen (in the page, `performance.now()`,
//! checked once a frame), the frame intervals while the transcript scrolls from the top to the bottom a step a
//! frame, and the memory of all app processes (PSS) before and with it open. Run it with
//! `scripts/bench-long-conversation.sh` (it builds the app like `scripts/test-e2e.sh` and runs this under Xvfb);
//! `--messages N` (a multiple of 10, default 10,000), `--runs N` (default 1), `--step PX` (scrolled per frame,
//! default 1,000), `--passes N` (scrolls from top to bottom per run, a line each, default 1), `--style RULES`
//! (CSS rules separated by `|`, added to the page before the first scroll: what a style costs the scroll frames).
//! `--drag` moves the view with the X pointer instead, as a user does: the scrollbar's thumb pressed at the top
//! and dragged down a pixel every 10 ms (`xdotool`) until the pointer has gone the view's height, the frames
//! counted from the press until the view rests after the release. `placeholder_frames` counts the frames that had
//! a row drawn as a placeholder (the transcript does that while the view moves faster than a row could be seen, as
//! at the default step and in a drag).
#![allow(clippy::print_stdout, reason = "a benchmark prints its report")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark aborts on the first failed step, like a test"
)]

#[allow(dead_code, reason = "shared with the tests, which use more of it")]
#[path = "../tests/support/model_server.rs"]
mod model_server;

#[allow(
    dead_code,
    reason = "shared with the other benchmarks, which use more of it"
)]
#[path = "../tests/support/app_processes.rs"]
mod app_processes;

#[allow(
    dead_code,
    reason = "shared with the other benchmarks, which use more of it"
)]
#[path = "../tests/support/bench_report.rs"]
mod bench_report;

#[path = "../tests/support/page_poll.rs"]
mod page_poll;

#[path = "../tests/support/stored_history.rs"]
mod stored_history;

use std::path::Path;
use std::time::{Duration, Instant};

use desktop_host::store::Store;
use pi_test_support::openai::OpenAiServer;
use serde_json::{Value, json};

use app_processes::app_pss_kib;
use bench_report::{Stats, load_average, mib};
use model_server::LaunchApp;
use page_poll::poll;
use stored_history::{assistant, database_in, tool_result, user};

/// The long conversation's title comes from its first question, which starts with this.
const TITLE: &str = "A year of questions";
/// How long memory is left to settle before it is read.
const SETTLE: Duration = Duration::from_secs(5);

struct Options {
    messages: usize,
    runs: usize,
    step: u32,
    passes: usize,
    style: Option<String>,
    drag: bool,
}

fn parse_options() -> Options {
    let mut options = Options {
        messages: 10_000,
        runs: 1,
        step: 1_000,
        passes: 1,
        style: None,
        drag: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--drag" {
            options.drag = true;
            continue;
        }
        let value = args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        let number = || -> usize {
            value
                .parse()
                .unwrap_or_else(|_| panic!("{arg} needs a number"))
        };
        match arg.as_str() {
            "--messages" => options.messages = number(),
            "--runs" => options.runs = number(),
            "--step" => options.step = u32::try_from(number()).unwrap(),
            "--passes" => options.passes = number(),
            "--style" => options.style = Some(value),
            other => panic!(
                "unknown argument {other}; use --messages N --runs N --step PX --passes N --style RULES --drag"
            ),
        }
    }
    assert!(
        options.messages >= 10 && options.messages % 10 == 0,
        "--messages must be a multiple of 10"
    );
    options
}

fn question(index: usize, timestamp: i64) -> Value {
    let text = if index == 0 {
        format!("{TITLE}, the first: what is in my Downloads?")
    } else {
        format!("Question {index}: what changed in my Downloads since the last one?")
    };
    user(&text, timestamp)
}

fn answer_text(index: usize) -> String {
    format!(
        "Answer {index}: three files are new since the last question.\n\n\
         - **report-{index}.pdf**, 2.1 MB\n- `notes-{index}.txt`, 4 KB\n- photo-{index}.jpg, 3.4 MB\n\n\
         The report is the largest; the [notes](https://example.com/{index}) are plain text."
    )
}

/// The messages of exchange `index`: a question and its answer, and in every fourth exchange a tool call and its
/// result before the answer.
fn exchange(index: usize, timestamp: i64) -> Vec<Value> {
    let answer = assistant(
        json!([{"type": "text", "text": answer_text(index)}]),
        "stop",
        timestamp,
    );
    if index % 4 != 3 {
        return vec![question(index, timestamp), answer];
    }
    let call_id = format!("call_{index}");
    vec![
        question(index, timestamp),
        assistant(
            json!([{"type": "toolCall", "id": call_id, "name": "list_files",
                    "arguments": {"folder": "Downloads"}}]),
            "toolUse",
            timestamp,
        ),
        tool_result(
            &call_id,
            "list_files",
            &format!("report-{index}.pdf\nnotes-{index}.txt\nphoto-{index}.jpg"),
            timestamp,
        ),
        answer,
    ]
}

/// Writes the long conversation, then a short newer one, into the database the app opens from `home`; returns
/// the markers of the long one's last question and last answer, and how many tool calls it holds.
fn seed(home: &Path, messages: usize) -> (String, String, usize) {
    let store = Store::open(&database_in(home)).unwrap().store;
    let long = store.create_conversation(Some("test-model")).unwrap();
    let started = 1_767_225_600_000_i64;
    let (mut written, mut index, mut tools) = (0, 0, 0);
    // Exchanges of 2 and 4 messages, 3 plain ones to a tool one: 10 messages per 4 exchanges.
    while written < messages {
        let timestamp = started + i64::try_from(index).unwrap() * 60_000;
        let batch = exchange(index, timestamp);
        if batch.len() == 4 {
            tools += 1;
        }
        for message in &batch {
            store.append_message(&long.id, message).unwrap();
        }
        written += batch.len();
        index += 1;
    }
    let short = store.create_conversation(Some("test-model")).unwrap();
    store
        .append_message(&short.id, &question(1, started))
        .unwrap();
    store
        .append_message(
            &short.id,
            &assistant(
                json!([{"type": "text", "text": "Nothing new."}]),
                "stop",
                started,
            ),
        )
        .unwrap();
    (
        format!("Question {}:", index - 1),
        format!("Answer {}:", index - 1),
        tools,
    )
}

/// Clicks the long conversation in the sidebar; the page then stamps, once a frame, when its last question is on
/// screen (`window.__questionShown`) and when its last answer's text is (`window.__opened`), in milliseconds after
/// the click.
const OPEN_SCRIPT: &str = r#"
const [title, marker, question] = arguments;
const item = [...document.querySelectorAll('[data-testid="conversation-item"]')]
  .find((element) => element.textContent.includes(title));
if (item === undefined) return `no conversation titled ${title} in the sidebar`;
const open = item.querySelector('[data-testid="conversation-open"]') ?? item;
window.__opened = null;
window.__questionShown = null;
const started = performance.now();
const check = () => {
  if (window.__questionShown === null) {
    const questions = document.querySelectorAll('[data-testid="message-user"]');
    const lastQuestion = questions[questions.length - 1];
    if (lastQuestion !== undefined && lastQuestion.textContent.includes(question)) {
      window.__questionShown = performance.now() - started;
    }
  }
  const answers = document.querySelectorAll('[data-testid="message-assistant"]');
  const last = answers[answers.length - 1];
  if (last !== undefined && last.textContent.includes(marker)) {
    window.__opened = performance.now() - started;
    return;
  }
  requestAnimationFrame(check);
};
open.click();
requestAnimationFrame(check);
return null;
"#;

/// Adds CSS rules (separated by `|`) to the page's style sheet: through the CSS object model, which the page's
/// content security policy (no inline styles) leaves open.
async fn add_style(app: &pi_desktop_e2e::AppUnderTest, rules: &str) {
    let count = app
        .client()
        .execute(
            "const sheet = document.styleSheets[0]; \
             for (const rule of arguments[0].split('|')) sheet.insertRule(rule, sheet.cssRules.length); \
             return sheet.cssRules.length;",
            vec![Value::from(rules)],
        )
        .await
        .unwrap();
    assert!(count.as_u64().is_some(), "{count}");
}

/// Scrolls the transcript to the top, then down by `arguments[0]` px a frame to the bottom, recording the
/// intervals between frames and how many frames had a placeholder row (`window.__scrolled`).
const SCROLL_SCRIPT: &str = r#"
const step = arguments[0];
const list = document.querySelector('[data-testid="message-list"]');
window.__scrolled = null;
list.scrollTop = 0;
const gaps = [];
let last = null;
let frames = 0;
let placeholderFrames = 0;
const tick = (now) => {
  if (last !== null) gaps.push(now - last);
  if (list.querySelector('[data-placeholder]') !== null) placeholderFrames += 1;
  last = now;
  frames += 1;
  const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 1;
  if ((atBottom && frames > 2) || frames > 100000) {
    window.__scrolled = { gaps, placeholderFrames, height: list.scrollHeight };
    return;
  }
  list.scrollTop += step;
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
"#;

/// Puts the transcript at its top; once it is there with the conversation's first question mounted, returns true.
fn to_top_script() -> String {
    format!(
        r#"
const list = document.querySelector('[data-testid="message-list"]');
list.scrollTop = 0;
const first = document.querySelector('[data-testid="message-user"]');
return list.scrollTop === 0 && first !== null && first.textContent.includes({}) ? true : null;
"#,
        Value::from(TITLE)
    )
}

/// Starts recording the intervals between frames and the frames with a placeholder row until the pointer is
/// released (`window.__released`) and the view rests with no placeholder left (`window.__scrolled`); returns where
/// the scrollbar's thumb is on the screen (the transcript at its top: the thumb's top end, at its right edge).
const DRAG_SCRIPT: &str = r#"
const list = document.querySelector('[data-testid="message-list"]');
window.__scrolled = null;
window.__released = false;
const gaps = [];
let last = null;
let placeholderFrames = 0;
const tick = (now) => {
  if (last !== null) gaps.push(now - last);
  last = now;
  const placeholder = list.querySelector('[data-placeholder]') !== null;
  if (placeholder) placeholderFrames += 1;
  if (window.__released && !placeholder) {
    window.__scrolled = { gaps, placeholderFrames, height: list.scrollHeight, top: list.scrollTop };
    return;
  }
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
const box = list.getBoundingClientRect();
return { x: Math.round(window.screenX + box.right - 4), y: Math.round(window.screenY + box.top + 4), height: list.clientHeight };
"#;

/// Drags the scrollbar's thumb from the screen point `at` down by `distance` px, a pixel every 10 ms, with the X
/// pointer; the pointer rests on the thumb 300 ms first, as a hand does (GTK widens the scrollbar under it).
async fn drag_thumb(at: &Value) {
    let x = at["x"].as_i64().unwrap();
    let y = at["y"].as_i64().unwrap();
    let distance = at["height"].as_u64().unwrap();
    let mut args: Vec<String> = [
        "mousemove",
        &x.to_string(),
        &y.to_string(),
        "sleep",
        "0.3",
        "mousedown",
        "1",
    ]
    .map(String::from)
    .to_vec();
    for _ in 0..distance {
        args.extend(["mousemove_relative", "--", "0", "1", "sleep", "0.01"].map(String::from));
    }
    args.extend(["mouseup", "1"].map(String::from));
    let status = tokio::task::spawn_blocking(move || {
        std::process::Command::new("xdotool").args(&args).status()
    })
    .await
    .unwrap()
    .expect("xdotool runs (the test set-up installs it)");
    assert!(status.success(), "xdotool failed: {status}");
}

#[tokio::main]
async fn main() {
    let options = parse_options();
    println!(
        "run  seed_s  tools  question_ms  open_ms  frames  frame_p50_ms  frame_p95_ms  frame_max_ms  over_17ms  placeholder_frames  idle_pss_mib  open_pss_mib  load"
    );
    for run in 1..=options.runs {
        let home = pi_desktop_e2e::new_home().unwrap();
        let seeding = Instant::now();
        let (question, marker, tools) = seed(home.path(), options.messages);
        let seed_s = seeding.elapsed().as_secs_f64();
        // No request is made: the server only gives the app a usable model.
        let server = OpenAiServer::start(vec![]).await.unwrap();
        let app = server.launch_app_in(home).await;
        app.wait_for_css(r#"[data-testid="conversation-item"]"#)
            .await
            .unwrap();
        tokio::time::sleep(SETTLE).await;
        let idle = app_pss_kib(app.home());

        let clicked = app
            .client()
            .execute(
                OPEN_SCRIPT,
                vec![
                    Value::from(TITLE),
                    Value::from(marker),
                    Value::from(question),
                ],
            )
            .await
            .unwrap();
        assert!(clicked.is_null(), "{clicked}");
        let opened = poll(&app, "return window.__opened;", Duration::from_secs(300)).await;
        let question_shown = app
            .client()
            .execute("return window.__questionShown;", vec![])
            .await
            .unwrap();
        tokio::time::sleep(SETTLE).await;
        let open = app_pss_kib(app.home());

        if let Some(rules) = &options.style {
            add_style(&app, rules).await;
        }
        for _ in 0..options.passes {
            if options.drag {
                poll(&app, &to_top_script(), Duration::from_secs(60)).await;
                let thumb = app.client().execute(DRAG_SCRIPT, vec![]).await.unwrap();
                drag_thumb(&thumb).await;
                app.client()
                    .execute("window.__released = true; return null;", vec![])
                    .await
                    .unwrap();
            } else {
                app.client()
                    .execute(SCROLL_SCRIPT, vec![Value::from(options.step)])
                    .await
                    .unwrap();
            }
            let scrolled = poll(&app, "return window.__scrolled;", Duration::from_secs(900)).await;
            let gaps: Vec<f64> = scrolled["gaps"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_f64)
                .collect();
            let frames = gaps.len();
            let over = gaps.iter().filter(|gap| **gap > 17.0).count();
            let placeholders = scrolled["placeholderFrames"].as_u64().unwrap_or(0);
            let gaps = Stats::new(gaps);
            println!(
                "{run:>3}  {seed_s:>6.1}  {tools:>5}  {:>11.0}  {:>7.0}  {frames:>6}  {:>12.1}  {:>12.1}  {:>12.1}  {over:>9}  {placeholders:>18}  {:>12.0}  {:>12.0}  {}",
                question_shown.as_f64().unwrap_or(f64::NAN),
                opened.as_f64().unwrap_or(f64::NAN),
                gaps.quantile(0.5),
                gaps.quantile(0.95),
                gaps.max(),
                mib(idle),
                mib(open),
                load_average()
            );
        }
        app.close().await.unwrap();
    }
}
