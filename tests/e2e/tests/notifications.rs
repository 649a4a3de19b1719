//! System notifications, against a notification server of the test's own on a private session bus: a
//! conversation that finishes answering in the background sends one notification, titled with the
//! conversation and offering to open it; clicking it (its default action) switches the window to that
//! conversation, with the finished answer.

use std::time::{Duration, Instant};

use pi_desktop_e2e::{AppUnderTest, LaunchOptions};
use pi_test_support::openai::{OpenAiServer, Reply, text_delta, unfinished_text_chunks};
use pretty_assertions::assert_eq;

use crate::support::model_server::LaunchApp;
use crate::support::notification_server::NotificationServer;
use crate::support::session_bus::SessionBus;

/// How long a condition the test polls for itself may take to hold.
const DEADLINE: Duration = Duration::from_secs(30);
/// How often the test looks again.
const POLL: Duration = Duration::from_millis(100);

/// XPath of an assistant answer in `state` whose text contains `text`.
fn answer_containing(state: &str, text: &str) -> String {
    format!(
        r#"//*[@data-testid="message-assistant" and @data-state="{state}"]//*[@data-testid="assistant-text" and contains(., "{text}")]"#
    )
}

/// The app in English (its notifications too), on `bus`, pointed at `server`.
async fn launch_on_bus(server: &OpenAiServer, bus: &SessionBus) -> AppUnderTest {
    let home = pi_desktop_e2e::new_home().unwrap();
    let config = home.path().join(".config/pi-desktop");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("settings.json"), r#"{"language":"en"}"#).unwrap();
    let mut envs = server.app_envs();
    envs.push((
        "DBUS_SESSION_BUS_ADDRESS".to_owned(),
        bus.address().to_owned(),
    ));
    AppUnderTest::launch_in(
        home,
        LaunchOptions {
            envs,
            args: Vec::new(),
        },
    )
    .await
    .unwrap()
}

/// Polls until the transcript shows no user message (a new, empty conversation), or panics after [`DEADLINE`].
async fn wait_for_empty_transcript(app: &AppUnderTest) {
    let started = Instant::now();
    loop {
        let shown = app
            .client()
            .execute(
                r#"return document.querySelectorAll('[data-testid="message-user"]').length;"#,
                Vec::new(),
            )
            .await
            .unwrap();
        if shown.as_u64() == Some(0) {
            return;
        }
        assert!(
            started.elapsed() < DEADLINE,
            "the new conversation still shows {shown} user messages after {DEADLINE:?}"
        );
        tokio::time::sleep(POLL).await;
    }
}

#[tokio::test]
async fn a_conversation_that_finishes_in_the_background_notifies_and_the_click_opens_it() {
    const QUESTION: &str = "Summarise my week";
    const SO_FAR: &str = "Your week so far: ";
    const REST: &str = "three meetings and a trip.";
    let bus = SessionBus::start();
    let notifications = NotificationServer::start(bus.address()).await;
    let server = OpenAiServer::start(vec![Reply::Feed(unfinished_text_chunks(&[]))])
        .await
        .unwrap();
    let app = launch_on_bus(&server, &bus).await;

    app.send_prompt(QUESTION).await.unwrap();
    server.feed(text_delta(SO_FAR));
    app.wait_for_xpath(&answer_containing("streaming", SO_FAR.trim()))
        .await
        .expect("the answer so far is not shown");
    assert_eq!(
        notifications.received(),
        Vec::new(),
        "nothing is notified while the answer streams"
    );

    // A new conversation: the first one answers on in the background and finishes there.
    app.wait_for_css(r#"[data-testid="new-conversation-button"]:not([disabled])"#)
        .await
        .expect("New conversation is not enabled while the answer streams")
        .click()
        .await
        .unwrap();
    wait_for_empty_transcript(&app).await;
    server.feed(text_delta(REST));
    server.finish_feed();

    let notification = notifications.wait_for_summary(QUESTION).await;
    assert_eq!(notification.app_name, "Pi Desktop");
    assert_eq!(notification.body, "The answer is ready.");
    assert_eq!(
        notification.actions,
        vec!["default".to_owned(), "Open the conversation".to_owned()],
        "a click (the default action) opens the conversation"
    );
    assert_eq!(
        notifications.received().len(),
        1,
        "one notification for the run: {:?}",
        notifications.received()
    );

    notifications.click(notification.id).await;
    app.wait_for_text("message-user", QUESTION)
        .await
        .expect("the click did not switch the window to the notified conversation");
    app.wait_for_xpath(&answer_containing("done", REST))
        .await
        .expect("the notified conversation does not show its finished answer");
    app.screenshot("notification-opened").await.unwrap();
    app.close().await.unwrap();
}
