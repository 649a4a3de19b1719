//! Stop, as a user presses it during an answer: the Stop button, then the model stream closed by the app and the
//! answer marked stopped.

use std::time::Duration;

use fantoccini::elements::Element;
use pi_desktop_e2e::AppUnderTest;

use pi_test_support::openai::OpenAiServer;

/// Clicks Stop once it is enabled, waits (at most `close_deadline`) until `server` saw the app close the model
/// stream, and returns the answer once it shows `data-state="stopped"`.
pub(crate) async fn stop_the_answer(
    app: &AppUnderTest,
    server: &OpenAiServer,
    close_deadline: Duration,
) -> Element {
    app.wait_for_css(r#"[data-testid="stop-button"]:not([disabled])"#)
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    tokio::time::timeout(close_deadline, server.client_closed())
        .await
        .expect("the app never closed the model stream after Stop");
    app.wait_for_css(r#"[data-testid="message-assistant"][data-state="stopped"]"#)
        .await
        .unwrap()
}
