//! An MCP tool call in the real window, against the real reference server (`@modelcontextprotocol/
//! server-everything`, installed by the ladder from `tests/mcp/package-lock.json`) configured in the app's
//! `mcp.json`: the tool card asks before anything runs; Allow once runs it and the answer streams; Deny gives the
//! model the refusal; Stop while the card asks ends the run with nothing run; Stop while an allowed call runs
//! cancels it; the settings list the server, ready.

use pi_desktop_e2e::AppUnderTest;
use pi_test_support::ReferenceServer;
use pi_test_support::openai::{OpenAiServer, Reply, text_chunks, tool_call_chunks};
use serde_json::Value;

use crate::support::model_server::LaunchApp;

/// A home whose `mcp.json` names the reference server, started with this machine's node.
fn home_with_the_reference_server() -> tempfile::TempDir {
    let home = pi_desktop_e2e::new_home().unwrap();
    ReferenceServer::find()
        .and_then(|server| server.write_mcp_json(&home.path().join(".config/pi-desktop")))
        .unwrap_or_else(|error| panic!("{error}"));
    home
}

async fn launch(server: &OpenAiServer) -> AppUnderTest {
    server.launch_app_in(home_with_the_reference_server()).await
}

/// A model that asks for `everything__get-sum` of 2 and 3, then says `answer`.
async fn model_adding(answer: &str) -> OpenAiServer {
    OpenAiServer::start(vec![
        Reply::Stream(tool_call_chunks(
            "call_sum",
            "everything__get-sum",
            &[r#"{"a": 2, "b": 3}"#],
        )),
        Reply::Stream(text_chunks(&[answer])),
    ])
    .await
    .unwrap()
}

/// The text of every `role: "tool"` message of the chat requests the model server received.
fn tool_messages(server: &OpenAiServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .flat_map(|request| {
            request.body["messages"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|message| message["role"] == "tool")
        .map(|message| match &message["content"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
        .collect()
}

async fn wait_for_the_question(app: &AppUnderTest) {
    app.wait_for_css(r#"[data-testid="tool-card"][data-state="awaiting_approval"] [data-testid="approval-prompt"]"#)
        .await
        .expect("the tool card asks before the call runs");
}

#[tokio::test]
async fn allow_once_runs_the_mcp_tool_and_the_answer_streams() {
    let server = model_adding("The sum is 5.").await;
    let app = launch(&server).await;

    app.send_prompt("What is 2 + 3? Use the tool.")
        .await
        .unwrap();
    wait_for_the_question(&app).await;
    let arguments = app
        .find_test_id("approval-arguments")
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        arguments.contains("\"a\": 2") && arguments.contains("\"b\": 3"),
        "{arguments}"
    );
    app.find_test_id("approve-once")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();

    app.wait_for_css(r#"[data-testid="tool-card"][data-state="done"]"#)
        .await
        .unwrap();
    app.wait_for_xpath(r#"//*[@data-testid="assistant-text" and contains(., "The sum is 5.")]"#)
        .await
        .unwrap();
    assert_eq!(
        tool_messages(&server),
        vec!["The sum of 2 and 3 is 5.".to_owned()]
    );
    app.screenshot("mcp-approval-allowed").await.unwrap();

    // The settings list the server, ready, with its tools.
    app.find_test_id("settings-button")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    let server = app
        .wait_for_css(r#"[data-testid="mcp-settings"] [data-testid="mcp-server"][data-name="everything"][data-state="ready"]"#)
        .await
        .unwrap();
    let listed = server.text().await.unwrap();
    assert!(
        listed.contains("get-sum") && listed.contains("stdio"),
        "{listed}"
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn deny_gives_the_model_the_refusal_and_the_run_goes_on() {
    let server = model_adding("I will not add them, then.").await;
    let app = launch(&server).await;

    app.send_prompt("What is 2 + 3? Use the tool.")
        .await
        .unwrap();
    wait_for_the_question(&app).await;
    app.find_test_id("deny")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();

    app.wait_for_xpath(
        r#"//*[@data-testid="assistant-text" and contains(., "I will not add them, then.")]"#,
    )
    .await
    .unwrap();
    let refusals = tool_messages(&server);
    assert_eq!(refusals.len(), 1);
    assert!(
        refusals[0].starts_with("The user denied this call of get-sum"),
        "{refusals:?}"
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn stop_while_the_card_asks_ends_the_run_with_nothing_run() {
    let server = model_adding("never sent").await;
    let app = launch(&server).await;

    app.send_prompt("What is 2 + 3? Use the tool.")
        .await
        .unwrap();
    wait_for_the_question(&app).await;
    app.find_test_id("stop-button")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();

    app.wait_for_css(r#"[data-testid="tool-card"][data-state="stopped"]"#)
        .await
        .unwrap();
    app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
        .await
        .unwrap();
    assert_eq!(
        server.requests().len(),
        1,
        "no request after the stopped call"
    );
    app.close().await.unwrap();
}

#[tokio::test]
async fn stop_while_an_allowed_call_runs_cancels_it_and_the_card_says_stopped() {
    let server = OpenAiServer::start(vec![
        Reply::Stream(tool_call_chunks(
            "call_long",
            "everything__trigger-long-running-operation",
            &[r#"{"duration": 60, "steps": 60}"#],
        )),
        Reply::Stream(text_chunks(&["never sent"])),
    ])
    .await
    .unwrap();
    let app = launch(&server).await;

    app.send_prompt("Run the long operation.").await.unwrap();
    wait_for_the_question(&app).await;
    app.find_test_id("approve-once")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    app.wait_for_css(r#"[data-testid="tool-card"][data-state="running"]"#)
        .await
        .unwrap();
    app.find_test_id("stop-button")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();

    // A minute's operation: the card settles long before it could have finished, and says it ran.
    let card = app
        .wait_for_css(r#"[data-testid="tool-card"][data-state="stopped"]"#)
        .await
        .unwrap();
    let text = card.text().await.unwrap();
    assert!(
        text.contains("Stopped while running") && text.contains("Operation aborted"),
        "{text}"
    );
    app.wait_for_css(r#"[data-testid="send-button"]:not([disabled])"#)
        .await
        .unwrap();
    app.screenshot("mcp-running-call-stopped").await.unwrap();
    assert_eq!(
        server.requests().len(),
        1,
        "the model is not asked again after the cancelled call"
    );
    app.close().await.unwrap();
}
