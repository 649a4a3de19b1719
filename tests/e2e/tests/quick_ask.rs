//! The quick-ask window: the global shortcut, pressed as the X server sees a key press (xdotool), opens it; its
//! question is answered there by the loopback model, in a conversation of its own; "Open in the main window"
//! continues that conversation in the main window.

use pi_test_support::openai::{OpenAiServer, Reply, text_chunks};
use pretty_assertions::assert_eq;

use crate::support::model_server::LaunchApp;

#[tokio::test]
async fn the_shortcut_opens_quick_ask_its_question_is_answered_and_continues_in_the_main_window() {
    const QUESTION: &str = "How many days has December?";
    const ANSWER: &str = "December has 31 days.";
    let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&[
        "December has ",
        "31 days.",
    ]))])
    .await
    .unwrap();
    let app = server
        .launch_app_with_settings(r#"{"language":"en"}"#)
        .await;
    app.find_test_id("composer-input").await.unwrap();
    let main = app.client().window().await.unwrap();

    let quick = app.open_quick_ask(&main).await.unwrap();
    app.client().switch_to_window(quick).await.unwrap();
    let input = app.find_test_id("quick-ask-input").await.unwrap();
    input
        .send_keys(&format!("{QUESTION}\u{E007}"))
        .await
        .unwrap();
    app.wait_for_css(r#"[data-testid="quick-ask-answer"][data-state="done"]"#)
        .await
        .expect("the quick-ask answer did not finish");
    app.wait_for_text("quick-ask-answer", ANSWER)
        .await
        .expect("the quick-ask window does not show the answer");
    app.wait_for_text("quick-ask-question", QUESTION)
        .await
        .unwrap();
    app.screenshot("quick-ask-answered").await.unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 1, "one question, one request");
    let messages = requests[0].body["messages"].as_array().unwrap();
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user");
    assert!(
        last["content"].to_string().contains(QUESTION),
        "the request carries the quick-ask question: {last}"
    );

    // The click hides this window, so it is made from a timer: the WebDriver command returns first, and the
    // session moves to the main window before this one goes.
    app.client()
        .execute(
            r#"setTimeout(() => document.querySelector('[data-testid="quick-ask-open-main"]').click(), 100); return true;"#,
            Vec::new(),
        )
        .await
        .unwrap();
    app.client().switch_to_window(main).await.unwrap();
    app.wait_for_text("message-user", QUESTION)
        .await
        .expect("the main window does not show the quick-ask conversation");
    app.wait_for_xpath(
        r#"//*[@data-testid="message-assistant" and @data-state="done"]//*[@data-testid="assistant-text" and contains(., "31 days")]"#,
    )
    .await
    .expect("the main window does not show the quick-ask answer");
    app.screenshot("quick-ask-in-main-window").await.unwrap();
    app.close().await.unwrap();
}
