//! The loop inspector in the real window against a loopback model: the "which PDFs are in my Downloads" run reads
//! as two turns ending `done`, a stopped run as `aborted`; after a restart both runs are still there; and the
//! replay of the last run, with no model call, ends with the transcript the conversation ended with.

use std::time::Duration;

use pi_desktop_e2e::AppUnderTest;
use pi_test_support::openai::{
    OpenAiServer, Reply, text_chunks, tool_call_chunks, unfinished_text_chunks,
};
use pretty_assertions::assert_eq;

use crate::support::model_server::LaunchApp;
use crate::support::stop::stop_the_answer;

const CLOSE_DEADLINE: Duration = Duration::from_secs(30);

async fn wait_until_idle(app: &AppUnderTest) {
    app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
        .await
        .unwrap();
}

/// The `data-exit` of every run the panel lists, in order. Read in the page: the list re-renders as runs end.
async fn exits(app: &AppUnderTest) -> Vec<String> {
    let listed = app
        .client()
        .execute(
            r#"return [...document.querySelectorAll('[data-testid="inspector-run"]')].map((run) => run.dataset.exit);"#,
            Vec::new(),
        )
        .await
        .unwrap();
    serde_json::from_value(listed).unwrap()
}

/// Waits until the panel lists runs ending as `wanted`.
async fn wait_for_exits(app: &AppUnderTest, wanted: &[&str]) {
    let xpath = format!(
        "//*[@data-testid=\"inspector-panel\" and count(.//*[@data-testid=\"inspector-run\"])={} and .//*[@data-testid=\"inspector-run\"][{}][@data-exit=\"{}\"]]",
        wanted.len(),
        wanted.len(),
        wanted.last().unwrap()
    );
    if let Err(error) = app.wait_for_xpath(&xpath).await {
        panic!(
            "the inspector never listed {wanted:?} ({error}); it lists {:?}",
            exits(app).await
        );
    }
    assert_eq!(exits(app).await, wanted);
}

async fn open_inspector(app: &AppUnderTest) {
    app.find_test_id("inspector-toggle")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    app.find_test_id("inspector-panel").await.unwrap();
}

/// The text of the conversation's messages (the actions under them are the window's, not the conversation's:
/// a replay shows none).
async fn transcript_text(app: &AppUnderTest) -> String {
    app.find_test_id("message-list").await.unwrap();
    let text = app
        .client()
        .execute(
            "return [...document.querySelectorAll('[data-testid=\"message-user\"], [data-testid=\"message-assistant\"]')]\
               .map((message) => message.innerText).join('\\n');",
            Vec::new(),
        )
        .await
        .unwrap();
    text.as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn the_inspector_shows_each_runs_turns_and_exit_keeps_them_after_a_restart_and_replays_a_run()
{
    let server = OpenAiServer::start(vec![
        Reply::Stream(tool_call_chunks(
            "call_list_1",
            "list_download_files",
            &[r#"{"extensions":["pdf"]}"#],
        )),
        Reply::Stream(text_chunks(&["One PDF: ", "invoice-2026.pdf."])),
        Reply::Hold(unfinished_text_chunks(&["Let me think about that"])),
    ])
    .await
    .unwrap();
    let app = server.launch_app().await;
    let downloads = app.home().join("Downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    std::fs::write(downloads.join("invoice-2026.pdf"), b"%PDF-1.4\n%%EOF\n").unwrap();

    app.send_prompt("Which PDFs are in my Downloads?")
        .await
        .unwrap();
    app.wait_for_xpath(
        r#"//*[@data-testid="assistant-text" and contains(., "invoice-2026.pdf.")]"#,
    )
    .await
    .unwrap();
    wait_until_idle(&app).await;
    open_inspector(&app).await;
    wait_for_exits(&app, &["done"]).await;
    let turns = app
        .client()
        .execute(
            r#"return document.querySelectorAll('[data-testid="inspector-run"] [data-testid="inspector-turn"]').length;"#,
            Vec::new(),
        )
        .await
        .unwrap();
    assert_eq!(turns, 2, "a tool turn and the answer's turn");
    app.wait_for_css(r#"[data-testid="inspector-tool"][data-outcome="done"]"#)
        .await
        .unwrap();

    // A second run, stopped while it streams, ends `aborted`.
    app.send_prompt("And what do you think of it?")
        .await
        .unwrap();
    app.wait_for_xpath(r#"//*[@data-testid="assistant-text" and contains(., "Let me think")]"#)
        .await
        .unwrap();
    wait_for_exits(&app, &["done", "running"]).await;
    // WebKit's screenshots can show a frame from before the last changes: the first one flushes it.
    app.screenshot("inspector-live").await.unwrap();
    app.screenshot("inspector-live").await.unwrap();
    stop_the_answer(&app, &server, CLOSE_DEADLINE).await;
    wait_until_idle(&app).await;
    wait_for_exits(&app, &["done", "aborted"]).await;
    app.screenshot("inspector-two-runs").await.unwrap();
    let before_restart = transcript_text(&app).await;

    // After a restart the runs are still there.
    let home = app.terminate().await.unwrap();
    let again = server.launch_app_in(home).await;
    again.find_test_id("conversation-item").await.unwrap();
    again
        .client()
        .find(fantoccini::Locator::Css(
            r#"[data-testid="conversation-open"]"#,
        ))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    again
        .wait_for_xpath(
            r#"//*[@data-testid="assistant-text" and contains(., "invoice-2026.pdf.")]"#,
        )
        .await
        .unwrap();
    open_inspector(&again).await;
    wait_for_exits(&again, &["done", "aborted"]).await;
    let requests_before_replay = server.requests().len();

    // The replay of the last run plays it back from its log and ends with the same transcript.
    let replay_buttons = again
        .client()
        .find_all(fantoccini::Locator::Css(r#"[data-testid="replay-button"]"#))
        .await
        .unwrap();
    replay_buttons.last().unwrap().click().await.unwrap();
    again.find_test_id("replay-controls").await.unwrap();
    // It opens paused, before the run; Step moves one event.
    again
        .wait_for_css(r#"[data-testid="replay-controls"][data-state="paused"]"#)
        .await
        .unwrap();
    let position = |app: &AppUnderTest| {
        let client = app.client().clone();
        async move {
            client
                .execute(
                    r#"return document.querySelector('[data-testid="replay-position"]').textContent;"#,
                    Vec::new(),
                )
                .await
                .unwrap()
        }
    };
    let before_step = position(&again).await;
    again
        .find_test_id("replay-step")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let stepped = again
        .wait_for_xpath(&format!(
            r#"//*[@data-testid="replay-position" and normalize-space(.)!="{}"]"#,
            before_step.as_str().unwrap()
        ))
        .await
        .unwrap();
    assert!(stepped.text().await.unwrap().starts_with("event "));
    again.screenshot("inspector-replay").await.unwrap();
    again.screenshot("inspector-replay").await.unwrap();
    again
        .find_test_id("replay-speed")
        .await
        .unwrap()
        .select_by_value("100")
        .await
        .unwrap();
    again
        .find_test_id("replay-play")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    again
        .wait_for_css(r#"[data-testid="replay-controls"][data-state="finished"]"#)
        .await
        .unwrap();
    again.screenshot("inspector-replay-finished").await.unwrap();
    assert_eq!(transcript_text(&again).await, before_restart);
    assert_eq!(
        server.requests().len(),
        requests_before_replay,
        "a replay calls no model"
    );
    again.close().await.unwrap();
}
