//! Exports through the save dialog: the file is written where the dialog says (the app's `e2e` build answers
//! the native dialog with `PI_DESKTOP_E2E_SAVE_PATH`, which WebDriver cannot drive), replacing a file there, and
//! the window says so and offers to show it in its folder.

use std::time::{Duration, Instant};

use pi_desktop_e2e::{AppUnderTest, LaunchOptions};
use pi_test_support::openai::{OpenAiServer, Reply, text_chunks};

use crate::support::model_server::LaunchApp;

/// How long the file may take to appear.
const DEADLINE: Duration = Duration::from_secs(30);
/// How often the test looks again.
const POLL: Duration = Duration::from_millis(100);

/// Polls until `path` holds text containing `wanted`, or panics after [`DEADLINE`].
async fn wait_for_file_containing(path: &std::path::Path, wanted: &str) -> String {
    let started = Instant::now();
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text.contains(wanted) {
            return text;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "{} does not contain {wanted:?} after {DEADLINE:?}: {text:?}",
            path.display()
        );
        tokio::time::sleep(POLL).await;
    }
}

#[tokio::test]
async fn an_export_is_written_where_the_save_dialog_says_and_offers_its_folder() {
    const QUESTION: &str = "What is on my desk";
    const ANSWER: &str = "A lamp and a plant.";
    let chosen_folder = tempfile::Builder::new()
        .prefix("pi-desktop-e2e-chosen-")
        .tempdir()
        .unwrap();
    let chosen = chosen_folder.path().join("desk notes.md");
    std::fs::write(&chosen, "an older file the user chose to replace").unwrap();
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&[ANSWER]))])
        .await
        .unwrap();
    let mut envs = server.app_envs();
    envs.push((
        "PI_DESKTOP_E2E_SAVE_PATH".to_owned(),
        chosen.display().to_string(),
    ));
    let app = AppUnderTest::launch(LaunchOptions {
        envs,
        args: Vec::new(),
    })
    .await
    .unwrap();

    app.send_prompt(QUESTION).await.unwrap();
    app.wait_for_css(r#"[data-testid="message-assistant"][data-state="done"]"#)
        .await
        .expect("the answer did not finish");
    app.wait_for_xpath(&format!(
        r#"//*[@data-testid="conversation-item"][.//*[@data-testid="conversation-open" and @title="{QUESTION}"]]//*[@data-testid="conversation-export-markdown"]"#
    ))
    .await
    .expect("the sidebar offers no Markdown export of the conversation")
    .click()
    .await
    .unwrap();

    let markdown = wait_for_file_containing(&chosen, ANSWER).await;
    assert!(markdown.contains(QUESTION), "{markdown}");
    assert!(!markdown.contains("an older file"), "{markdown}");
    app.wait_for_xpath(
        r#"//*[@data-testid="sidebar-toast"][contains(., "Saved desk notes.md.")]//*[@data-testid="export-show-in-folder"]"#,
    )
    .await
    .expect("the window does not say the export was saved, or offers no folder");
    let beside: Vec<_> = std::fs::read_dir(chosen_folder.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(
        beside.len(),
        1,
        "nothing is left beside the export: {beside:?}"
    );
    app.screenshot("export-saved").await.unwrap();
    app.close().await.unwrap();
}
