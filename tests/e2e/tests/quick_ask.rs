//! The quick-ask window: the global shortcut, pressed with xdotool on the X server (Xvfb), opens it; its question
//! is answered in a new conversation by the loopback model, streamed into the window; "Open in the main window"
//! shows that conversation there, while the conversation the main window showed before is left as it was.

use std::process::Command;
use std::time::{Duration, Instant};

use fantoccini::wd::WindowHandle;
use pi_desktop_e2e::AppUnderTest;
use pi_test_support::openai::{OpenAiServer, Reply, text_chunks};
use pretty_assertions::assert_eq;

use crate::support::model_server::LaunchApp;

/// How long the quick-ask window may take to appear.
const DEADLINE: Duration = Duration::from_secs(30);
/// How often the test looks again.
const POLL: Duration = Duration::from_millis(100);

/// Presses `keys` (xdotool's names) on the X server the app runs on.
fn press(keys: &str) {
    let status = Command::new("xdotool")
        .args(["key", "--clearmodifiers", keys])
        .status()
        .expect("xdotool must be installed (Debian package xdotool)");
    assert!(status.success(), "xdotool key {keys} failed: {status}");
}

/// Polls until the app has a window besides `main`, or panics after [`DEADLINE`].
async fn wait_for_second_window(app: &AppUnderTest, main: &WindowHandle) -> WindowHandle {
    let started = Instant::now();
    loop {
        let windows = app.client().windows().await.unwrap();
        if let Some(other) = windows.into_iter().find(|window| window != main) {
            return other;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "no quick-ask window {DEADLINE:?} after the shortcut"
        );
        tokio::time::sleep(POLL).await;
    }
}

#[tokio::test]
async fn the_shortcut_opens_the_quick_ask_window_whose_question_is_answered_and_opens_in_the_main_window()
 {
    const QUESTION: &str = "How tall is the lighthouse";
    const ANSWER: &str = "Forty-two metres.";
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&[ANSWER]))])
        .await
        .unwrap();
    let app = server.launch_app().await;
    app.find_test_id("composer-input").await.unwrap();
    let main = app.client().window().await.unwrap();

    press("ctrl+alt+space");
    let quick_ask = wait_for_second_window(&app, &main).await;
    app.client().switch_to_window(quick_ask).await.unwrap();
    let input = app.find_test_id("quick-ask-input").await.unwrap();
    input
        .send_keys(&format!("{QUESTION}\u{E007}"))
        .await
        .unwrap();

    app.wait_for_text("quick-ask-question", QUESTION)
        .await
        .expect("the quick-ask window does not show its question");
    app.wait_for_xpath(&format!(
        r#"//*[@data-testid="quick-ask-answer" and @data-state="done" and contains(., "{ANSWER}")]"#
    ))
    .await
    .expect("the quick-ask window does not show the finished answer");
    app.screenshot("quick-ask").await.unwrap();
    assert_eq!(server.requests().len(), 1, "one model request");

    app.find_test_id("quick-ask-open-main")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    app.client().switch_to_window(main).await.unwrap();
    app.wait_for_text("message-user", QUESTION)
        .await
        .expect("the main window does not show the quick-ask conversation");
    app.wait_for_xpath(&format!(
        r#"//*[@data-testid="message-assistant" and @data-state="done"]//*[@data-testid="assistant-text" and contains(., "{ANSWER}")]"#
    ))
    .await
    .expect("the main window does not show the quick-ask answer");
    app.close().await.unwrap();
}
