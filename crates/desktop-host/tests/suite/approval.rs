//! Tool approval beyond one session: "allow in this conversation" kept in the conversation database (through a
//! restart of the conversations service, with the real reference MCP server) and revoked, and the setting that
//! makes the built-in desktop tools ask.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use desktop_host::approval::{ApprovalDecision, ApprovalError};
use desktop_host::conversations::{Conversations, ConversationsOptions, SessionOptionsFactory};
use desktop_host::mcp::{McpServers, NoSecrets};
use desktop_host::session::{DesktopSession, SessionOptions};
use desktop_host::store::ConversationId;
use pi_ai::ToolCall;
use pi_ai::scripted::{ScriptedProvider, text_message, tool_call_message};
use pi_test_support::ReferenceServer;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::envelopes::{EnvelopeLog, events, is_idle};
use crate::support::home::{TestHome, test_home};
use crate::support::settings::scripted_settings;

fn is_question(envelope: &Value) -> bool {
    envelope["notice"]["type"] == "approval_requested"
}

fn questions(envelopes: &[Value]) -> usize {
    envelopes
        .iter()
        .filter(|envelope| is_question(envelope))
        .count()
}

fn tool_results(envelopes: &[Value]) -> Vec<Value> {
    events(envelopes)
        .into_iter()
        .filter(|event| event["type"] == "tool_execution_end")
        .cloned()
        .collect()
}

/// The app's conversations over `home`'s data folder, with the reference server's tools; every session's
/// scripted model calls `everything__get-sum` and then answers, once per run (tool call ids numbered across
/// sessions).
fn open_conversations(home: &TestHome, servers: &Arc<McpServers>) -> Conversations {
    let settings = scripted_settings();
    let paths = home.paths.clone();
    let servers = Arc::clone(servers);
    let n_calls = Arc::new(AtomicUsize::new(0));
    let factory: SessionOptionsFactory = Arc::new(move || {
        let mut responses = Vec::new();
        for _ in 0..3 {
            let index = n_calls.fetch_add(1, Ordering::Relaxed);
            responses.push(tool_call_message([ToolCall::new(
                format!("call_{index}"),
                "everything__get-sum",
                json!({"a": index, "b": 1}),
            )]));
            responses.push(text_message(format!("answer {index}")));
        }
        let mut options = SessionOptions::new(settings.clone(), paths.clone());
        options.stream_fn = Some(ScriptedProvider::new(responses).stream_fn());
        options.coalesce_window = Duration::ZERO;
        options.mcp = Some(Arc::clone(&servers));
        Ok(options)
    });
    Conversations::open(ConversationsOptions::new(
        home.home().join("data"),
        home.downloads(),
        factory,
    ))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_in_this_conversation_survives_reopening_the_conversation_and_a_revoke_asks_again() {
    let home = test_home();
    let config_dir = home.home().join(".config/pi-desktop");
    ReferenceServer::find()
        .and_then(|server| server.write_mcp_json(&config_dir))
        .unwrap_or_else(|error| panic!("{error}"));
    let servers = Arc::new(McpServers::load(Some(&config_dir), Arc::new(NoSecrets)));
    servers.start_all().await;

    // First app run: the call asks, and the user allows the tool in this conversation.
    let conversations = open_conversations(&home, &servers);
    let conversation = conversations.active().await.unwrap();
    let id: ConversationId = conversation.id.clone();
    let (mut log, _snapshot) = EnvelopeLog::of_conversation(&conversations, &id);
    let run = conversation.session.start_prompt("add").await.unwrap();
    let question = log.wait_for(is_question).await;
    assert_eq!(
        (
            &question["notice"]["server"],
            &question["notice"]["tool"],
            &question["notice"]["builtIn"]
        ),
        (&json!("everything"), &json!("get-sum"), &json!(false))
    );
    conversation
        .session
        .resolve_approval(
            question["notice"]["requestId"].as_u64().unwrap(),
            ApprovalDecision::AllowConversation,
        )
        .unwrap();
    run.finished().await.unwrap();
    log.wait_for_idle().await;
    let kept: Vec<(String, String)> = conversations
        .store()
        .all_conversation_grants()
        .unwrap()
        .into_iter()
        .map(|grant| (grant.server, grant.tool))
        .collect();
    assert_eq!(kept, vec![("everything".to_owned(), "get-sum".to_owned())]);
    drop((conversation, log, conversations));

    // After a restart the same conversation, opened from the same database, runs the tool without asking.
    let conversations = open_conversations(&home, &servers);
    let reopened = conversations.open_conversation(&id).await.unwrap();
    let (mut log, _snapshot) = EnvelopeLog::of_conversation(&conversations, &id);
    let run = reopened.session.start_prompt("add again").await.unwrap();
    let first = log
        .wait_for(|envelope| is_question(envelope) || is_idle(envelope))
        .await;
    assert!(is_idle(&first), "no question after the restart: {first}");
    run.finished().await.unwrap();
    let results = tool_results(&log.seen);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["isError"], false, "{}", results[0]);

    // Revoked (as the settings do: from the store, and from the open session), the next call asks again.
    assert!(
        conversations
            .store()
            .revoke_conversation_grant(&id, "everything", "get-sum")
            .unwrap()
    );
    reopened
        .session
        .forget_conversation_grant("everything", "get-sum");
    let run = reopened
        .session
        .start_prompt("and once more")
        .await
        .unwrap();
    let question = log.wait_for(is_question).await;
    reopened
        .session
        .resolve_approval(
            question["notice"]["requestId"].as_u64().unwrap(),
            ApprovalDecision::Deny { note: None },
        )
        .unwrap();
    run.finished().await.unwrap();
    log.wait_for_idle().await;
    assert_eq!(questions(&log.seen), 1);
    assert_eq!(
        conversations.store().all_conversation_grants().unwrap(),
        vec![]
    );
}

/// A session alone whose scripted model calls the built-in `list_download_files`, then answers.
fn built_in_session(ask: bool) -> (DesktopSession, EnvelopeLog, TestHome) {
    let home = test_home();
    let mut settings = scripted_settings();
    settings.ask_before_built_in_tools = ask;
    let model = ScriptedProvider::new([
        tool_call_message([ToolCall::new("call_0", "list_download_files", json!({}))]),
        text_message("done"),
    ]);
    let mut options = SessionOptions::new(settings, home.paths.clone());
    options.stream_fn = Some(model.stream_fn());
    let (session, envelopes) = DesktopSession::start_with_channel(options).unwrap();
    (session, EnvelopeLog::start(envelopes), home)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_setting_on_a_built_in_call_asks_offering_no_always_answers() {
    let (session, mut log, _home) = built_in_session(true);

    let run = session.start_prompt("what did I download?").await.unwrap();
    let question = log.wait_for(is_question).await;

    assert_eq!(
        question["notice"],
        json!({"type": "approval_requested", "requestId": 1, "toolCallId": "call_0", "server": "",
               "tool": "list_download_files", "builtIn": true,
               "offered": ["allow_once", "allow_conversation", "deny", "deny_and_stop"],
               "arguments": {}, "readOnlyClaim": false, "destructiveClaim": false})
    );
    assert!(
        tool_results(&log.seen).is_empty(),
        "nothing ran before the answer"
    );
    assert_eq!(
        session.resolve_approval(1, ApprovalDecision::AllowToolAlways),
        Err(ApprovalError::NotOfferedForBuiltIn)
    );
    session
        .resolve_approval(1, ApprovalDecision::AllowOnce)
        .unwrap();
    run.finished().await.unwrap();
    log.wait_for_idle().await;
    let results = tool_results(&log.seen);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["isError"], false, "{}", results[0]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_setting_off_a_built_in_call_runs_without_asking() {
    let (session, mut log, _home) = built_in_session(false);

    let run = session.start_prompt("what did I download?").await.unwrap();
    let first = log
        .wait_for(|envelope| is_question(envelope) || is_idle(envelope))
        .await;
    assert!(is_idle(&first), "no question: {first}");
    run.finished().await.unwrap();
    let results = tool_results(&log.seen);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["isError"], false, "{}", results[0]);
}
