//! A long, structured answer that arrives as fast as loopback allows: the window keeps answering the user
//! while it arrives, shows all of it, reaches idle soon after the last byte and never shows idle ahead of the
//! text; Stop in the middle of it works as always.

use std::time::Duration;

use pi_test_support::openai::{OpenAiServer, Reply, text_chunks, unfinished_text_chunks};

use crate::support::long_answer::{PROBE_INTERVAL, ServerApart, markdown_answer, probe_until_idle};
use crate::support::model_server::LaunchApp;
use crate::support::stop::stop_the_answer;

/// About 1 MB of Markdown in 24-character deltas: some 41,700 deltas and 3,400 sections.
const ANSWER_CHARS: usize = 1_000_000;
const DELTA_CHARS: usize = 24;

// Generous bounds for the ladder's shared machine: the figures themselves are in the README (Benchmarks).
const P95_BOUND: Duration = Duration::from_millis(400);
const MAX_BOUND: Duration = Duration::from_millis(2_000);
const IDLE_AFTER_LAST_BYTE_BOUND: Duration = Duration::from_secs(40);
const RUN_DEADLINE: Duration = Duration::from_secs(180);

#[tokio::test]
async fn a_one_megabyte_answer_arriving_fast_keeps_the_window_answering_and_shows_all_of_it() {
    let answer = markdown_answer(ANSWER_CHARS);
    let deltas = answer.deltas(DELTA_CHARS);
    assert!(deltas.len() > 40_000, "{} deltas", deltas.len());
    let server = ServerApart::start(vec![Reply::Stream(text_chunks(&deltas))]).await;
    let app = server.launch_app().await;

    app.send_prompt("Write a very long structured document")
        .await
        .unwrap();
    let seen = probe_until_idle(&app, &answer.last_heading(), RUN_DEADLINE).await;
    let idle_seen = std::time::Instant::now();

    assert!(
        seen.complete_at_idle,
        "the status line read idle before the whole answer was on screen: {}",
        seen.summary()
    );
    let last_byte = server
        .last_byte_at()
        .expect("the model server never finished the stream");
    let idle_after_last_byte = idle_seen.saturating_duration_since(last_byte);
    println!(
        "1 MB answer: {}; idle {idle_after_last_byte:?} after the last byte",
        seen.summary()
    );
    assert!(
        idle_after_last_byte < IDLE_AFTER_LAST_BYTE_BOUND + PROBE_INTERVAL,
        "idle {idle_after_last_byte:?} after the last byte: {}",
        seen.summary()
    );
    assert!(
        seen.quantile(0.95) < P95_BOUND && seen.max() < MAX_BOUND,
        "the window stopped answering while the answer arrived: {}",
        seen.summary()
    );

    let shown = app
        .client()
        .execute(
            r#"const text = document.querySelector('[data-testid="message-assistant"][data-state="done"] [data-testid="assistant-text"]');
               return text === null ? null : {
                 headings: text.querySelectorAll("h2").length,
                 fences: text.querySelectorAll("pre code.language-rust").length,
                 tables: text.querySelectorAll("table").length,
               };"#,
            Vec::new(),
        )
        .await
        .unwrap();
    let sections = serde_json::Value::from(answer.sections);
    assert_eq!(
        shown,
        serde_json::json!({"headings": sections, "fences": sections, "tables": sections}),
        "every section is on screen once"
    );
    app.screenshot("long-answer-done").await.unwrap();
    assert_eq!(server.requests().len(), 1);
    app.close().await.unwrap();
}

#[tokio::test]
async fn stop_in_the_middle_of_a_fast_long_answer_stops_it_and_keeps_what_arrived() {
    let answer = markdown_answer(ANSWER_CHARS / 2);
    let deltas = answer.deltas(DELTA_CHARS);
    let server = OpenAiServer::start(vec![Reply::Hold(unfinished_text_chunks(&deltas))])
        .await
        .unwrap();
    let app = server.launch_app().await;

    app.send_prompt("Write a very long structured document")
        .await
        .unwrap();
    app.wait_for_xpath(
        r#"//*[@data-testid="message-assistant" and @data-state="streaming"]//*[@data-testid="assistant-text" and contains(., "Section 0")]"#,
    )
    .await
    .unwrap();
    let stopped = stop_the_answer(&app, &server, RUN_DEADLINE).await;
    app.wait_for_css(r#"[data-testid="send-button"]:not([disabled])"#)
        .await
        .unwrap();
    app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
        .await
        .unwrap();
    let headings = stopped
        .find_all(fantoccini::Locator::Css("h2"))
        .await
        .unwrap()
        .len();
    assert!(headings >= 1, "the partial answer is gone");
    app.screenshot("long-answer-stopped").await.unwrap();
    app.close().await.unwrap();
}
