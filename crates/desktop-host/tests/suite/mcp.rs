//! MCP servers as tool sources, against the real reference server (`@modelcontextprotocol/server-everything`,
//! pinned by `tests/mcp/package-lock.json` and installed by the test ladder) over stdio: the handshake and the
//! tool list, calls through the agent loop with the scripted model (a sum, an image, structured content), progress
//! on the tool card, Stop during a long operation, and a server whose program does not exist.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use desktop_host::mcp::{
    ConfigValue, McpClient, McpError, McpServerConfig, NoSecrets, RmcpClient, mcp_agent_tools,
};
use pi_agent::{Agent, AgentEvent, AgentInitialState, AgentOptions, AgentTool, HookError};
use pi_ai::ToolCall;
use pi_ai::scripted::{ScriptedProvider, text_message, tool_call_message};
use pi_test_support::ReferenceServer;
use serde_json::{Value, json};

/// The reference server over stdio (`npm ci --prefix tests/mcp` installs it).
fn everything_config() -> McpServerConfig {
    let server = ReferenceServer::find().unwrap_or_else(|error| panic!("{error}"));
    McpServerConfig::stdio("everything", server.node.display().to_string(), server.args)
}

async fn everything() -> Arc<dyn McpClient> {
    Arc::new(
        RmcpClient::start(&everything_config(), &NoSecrets)
            .await
            .unwrap(),
    )
}

/// Runs one prompt through an agent whose only tools are `client`'s and whose scripted model first calls
/// `tool` with `arguments`, then answers "done"; returns every event.
pub(super) async fn run_through_the_agent(
    client: Arc<dyn McpClient>,
    tool: &str,
    arguments: Value,
    abort_on: impl Fn(&AgentEvent) -> bool + Send + Sync + 'static,
) -> Vec<Arc<AgentEvent>> {
    let model = ScriptedProvider::new([
        tool_call_message([ToolCall::new("call_1", tool, arguments)]),
        text_message("done"),
    ]);
    let mut options = AgentOptions::new(model.stream_fn());
    options.initial_state = AgentInitialState {
        model: model.model(None),
        tools: mcp_agent_tools(&[client.into()], &[], true)
            .into_iter()
            .map(|tool| tool as pi_agent::SharedAgentTool)
            .collect(),
        ..AgentInitialState::default()
    };
    let agent = Agent::new(options);
    let events: Arc<Mutex<Vec<Arc<AgentEvent>>>> = Arc::default();
    let seen = Arc::clone(&events);
    let weak = agent.downgrade();
    let _subscription = agent.subscribe(move |event: Arc<AgentEvent>, _cancel| {
        let stop = abort_on(&event);
        seen.lock().unwrap().push(event);
        if stop && let Some(agent) = weak.upgrade() {
            agent.abort();
        }
        async { Ok::<(), HookError>(()) }
    });
    agent.prompt("go").await.unwrap();
    events.lock().unwrap().clone()
}

pub(super) fn tool_end(events: &[Arc<AgentEvent>]) -> (Value, bool) {
    events
        .iter()
        .find_map(|event| match event.as_ref() {
            AgentEvent::ToolExecutionEnd {
                result, is_error, ..
            } => Some((serde_json::to_value(result).unwrap(), *is_error)),
            _ => None,
        })
        .expect("the tool call ended")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_server_starts_lists_its_tools_and_adds_two_numbers_through_the_agent() {
    let started = Instant::now();
    let client = everything().await;
    let start_up = started.elapsed();

    let listed = client.tools();
    let names: Vec<&str> = listed.iter().map(|tool| tool.name.as_str()).collect();
    for expected in [
        "echo",
        "get-sum",
        "get-tiny-image",
        "get-structured-content",
        "trigger-long-running-operation",
    ] {
        assert!(
            names.contains(&expected),
            "{expected} missing from {names:?}"
        );
    }
    let tools = mcp_agent_tools(&[Arc::clone(&client).into()], &[], true);
    let get_sum = tools
        .iter()
        .find(|tool| tool.name() == "everything__get-sum")
        .unwrap();
    assert!(
        get_sum.description().contains("MCP server \"everything\""),
        "{}",
        get_sum.description()
    );
    assert!(
        start_up < Duration::from_secs(30),
        "started in {start_up:?}"
    );

    let events = run_through_the_agent(
        client,
        "everything__get-sum",
        json!({"a": 2, "b": 3}),
        |_| false,
    )
    .await;

    let (result, is_error) = tool_end(&events);
    assert!(!is_error, "{result}");
    assert_eq!(result["content"][0]["text"], "The sum of 2 and 3 is 5.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_reaches_the_model_and_structured_content_the_details() {
    let client = everything().await;

    let image = tool_end(
        &run_through_the_agent(
            Arc::clone(&client),
            "everything__get-tiny-image",
            json!({}),
            |_| false,
        )
        .await,
    )
    .0;
    let weather = tool_end(
        &run_through_the_agent(
            client,
            "everything__get-structured-content",
            json!({"location": "Chicago"}),
            |_| false,
        )
        .await,
    )
    .0;

    assert_eq!(
        image["content"]
            .as_array()
            .unwrap()
            .iter()
            .find(|block| block["type"] == "image")
            .unwrap()["mimeType"],
        "image/png"
    );
    assert_eq!(
        weather["details"]["structuredContent"]["temperature"], 36,
        "{weather}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reaches_the_tool_card_and_stop_ends_a_long_operation_at_once() {
    let client = everything().await;

    let stopped = Instant::now();
    let events = run_through_the_agent(
        client,
        "everything__trigger-long-running-operation",
        json!({"duration": 30, "steps": 60}),
        // Stop after the second progress update, as a user watching the card would.
        {
            let updates = Mutex::new(0);
            move |event| {
                if matches!(event, AgentEvent::ToolExecutionUpdate { .. }) {
                    let mut seen = updates.lock().unwrap();
                    *seen += 1;
                    *seen == 2
                } else {
                    false
                }
            }
        },
    )
    .await;
    let took = stopped.elapsed();

    let updates: Vec<Value> = events
        .iter()
        .filter_map(|event| match event.as_ref() {
            AgentEvent::ToolExecutionUpdate { partial_result, .. } => {
                Some(serde_json::to_value(partial_result).unwrap())
            }
            _ => None,
        })
        .collect();
    assert!(updates.len() >= 2, "{updates:?}");
    assert_eq!(updates[0]["details"]["total"], 60.0);
    assert_eq!(updates[0]["content"][0]["text"], "1 of 60");
    let (result, is_error) = tool_end(&events);
    assert!(is_error, "a stopped call is an error result: {result}");
    assert!(
        took < Duration::from_secs(20),
        "Stop ended the 30 s operation after {took:?}"
    );
    let ends = events
        .iter()
        .filter(|event| matches!(event.as_ref(), AgentEvent::ToolExecutionEnd { .. }))
        .count();
    assert_eq!(ends, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_whose_program_does_not_exist_fails_at_once_saying_what_to_install() {
    let config = McpServerConfig::stdio("ghost", "pi-desktop-no-such-mcp-server", Vec::new());

    let started = Instant::now();
    let error = RmcpClient::start(&config, &NoSecrets).await.err().unwrap();

    assert!(matches!(error, McpError::CommandNotFound { .. }), "{error}");
    assert_eq!(
        error.to_string(),
        "MCP server \"ghost\": pi-desktop-no-such-mcp-server not found: install it, or give the absolute path of the program"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_before_the_handshake_is_reported_with_its_last_output() {
    let config = McpServerConfig::stdio(
        "broken",
        "sh",
        vec![
            "-c".to_owned(),
            "echo \"cannot read config.yaml ($TOKEN)\" >&2; exit 3".to_owned(),
        ],
    );
    let mut config = config;
    if let desktop_host::mcp::McpTransport::Stdio { env, .. } = &mut config.transport {
        env.insert("TOKEN".to_owned(), ConfigValue::plain("sk-secret-value"));
    }

    let error = RmcpClient::start(&config, &NoSecrets).await.err().unwrap();

    assert!(matches!(error, McpError::Handshake { .. }), "{error}");
    let message = error.to_string();
    assert!(
        message.starts_with("MCP server \"broken\" did not start: "),
        "{message}"
    );
    assert!(
        message.ends_with("its last output: cannot read config.yaml (***)"),
        "{message}"
    );
}

mod approval {
    //! Approval of MCP calls through a real session: the question on the stream, each answer, and Stop.

    use std::sync::Arc;

    use desktop_host::approval::ApprovalDecision;
    use desktop_host::mcp::{McpConfig, McpServers, NoSecrets};
    use desktop_host::session::{DesktopSession, SessionOptions};
    use pi_ai::ToolCall;
    use pi_ai::scripted::{ScriptedProvider, text_message, tool_call_message};
    use serde_json::{Value, json};

    use super::everything_config;
    use crate::support::envelopes::{EnvelopeLog, events};
    use crate::support::home::test_home;
    use crate::support::settings::scripted_settings;

    async fn session_calling(
        calls: Vec<(&str, Value)>,
    ) -> (DesktopSession, EnvelopeLog, crate::support::home::TestHome) {
        let servers = McpServers::from_config(
            McpConfig {
                servers: vec![everything_config()],
            },
            Vec::new(),
            Arc::new(NoSecrets),
        );
        session_with(servers, calls).await
    }

    /// A session over `servers` (started here) whose scripted model makes `calls`, one per run.
    async fn session_with(
        servers: McpServers,
        calls: Vec<(&str, Value)>,
    ) -> (DesktopSession, EnvelopeLog, crate::support::home::TestHome) {
        let home = test_home();
        let settings = scripted_settings();
        let servers = Arc::new(servers);
        servers.start_all().await;
        let mut responses = Vec::new();
        for (index, (tool, arguments)) in calls.into_iter().enumerate() {
            responses.push(tool_call_message([ToolCall::new(
                format!("call_{index}"),
                tool,
                arguments,
            )]));
            responses.push(text_message(format!("answer {index}")));
        }
        let model = ScriptedProvider::new(responses);
        let mut options = SessionOptions::new(settings, home.paths.clone());
        options.stream_fn = Some(model.stream_fn());
        options.mcp = Some(servers);
        let (session, envelopes) = DesktopSession::start_with_channel(options).unwrap();
        (session, EnvelopeLog::start(envelopes), home)
    }

    fn is_question(envelope: &Value) -> bool {
        envelope["notice"]["type"] == "approval_requested"
    }

    fn tool_results(envelopes: &[Value]) -> Vec<Value> {
        events(envelopes)
            .into_iter()
            .filter(|event| event["type"] == "tool_execution_end")
            .cloned()
            .collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_mcp_call_asks_first_and_allow_once_runs_it() {
        let (session, mut log, _home) =
            session_calling(vec![("everything__get-sum", json!({"a": 2, "b": 3}))]).await;

        let run = session.start_prompt("add").await.unwrap();
        let question = log.wait_for(is_question).await;
        assert_eq!(
            question["notice"],
            json!({"type": "approval_requested", "requestId": 1, "toolCallId": "call_0", "server": "everything",
                   "tool": "get-sum", "builtIn": false,
                   "offered": ["allow_once", "allow_conversation", "allow_tool_always", "allow_server_always", "deny",
                               "deny_and_stop"],
                   "arguments": {"a": 2, "b": 3}, "readOnlyClaim": true, "destructiveClaim": false})
        );
        assert!(
            tool_results(&log.seen).is_empty(),
            "nothing ran before the answer"
        );
        session
            .resolve_approval(1, ApprovalDecision::AllowOnce)
            .unwrap();
        run.finished().await.unwrap();
        log.wait_for_idle().await;

        let results = tool_results(&log.seen);
        assert_eq!(results[0]["isError"], false);
        assert_eq!(
            results[0]["result"]["content"][0]["text"],
            "The sum of 2 and 3 is 5."
        );
        assert!(
            log.seen
                .iter()
                .any(|envelope| envelope["notice"]["outcome"] == "allowed")
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn deny_gives_the_model_the_refusal_and_its_note_and_the_run_goes_on() {
        let (session, mut log, _home) =
            session_calling(vec![("everything__get-sum", json!({"a": 1, "b": 1}))]).await;

        let run = session.start_prompt("add").await.unwrap();
        let question = log.wait_for(is_question).await;
        let request_id = question["notice"]["requestId"].as_u64().unwrap();
        session
            .resolve_approval(
                request_id,
                ApprovalDecision::Deny {
                    note: Some("not now".to_owned()),
                },
            )
            .unwrap();
        run.finished().await.unwrap();
        log.wait_for_idle().await;

        let results = tool_results(&log.seen);
        assert_eq!(results[0]["isError"], true);
        assert_eq!(
            results[0]["result"]["content"][0]["text"],
            "The user denied this call of get-sum (MCP server \"everything\"); it was not run. The user's note: not now"
        );
        let answer = events(&log.seen)
            .into_iter()
            .rev()
            .find(|event| event["type"] == "message_end")
            .cloned()
            .unwrap();
        assert_eq!(
            answer["message"]["content"][0]["text"], "answer 0",
            "the run went on to the answer"
        );
        assert!(
            session
                .resolve_approval(request_id, ApprovalDecision::AllowOnce)
                .is_err(),
            "answered once"
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stop_while_the_question_waits_withdraws_it_and_nothing_runs() {
        let (session, mut log, _home) =
            session_calling(vec![("everything__get-sum", json!({"a": 1, "b": 2}))]).await;

        let run = session.start_prompt("add").await.unwrap();
        let question = log.wait_for(is_question).await;
        session.abort();
        run.finished().await.unwrap();
        log.wait_for_idle().await;

        let request_id = question["notice"]["requestId"].as_u64().unwrap();
        assert!(
            log.seen
                .iter()
                .any(|envelope| envelope["notice"]["outcome"] == "withdrawn")
        );
        assert!(
            session
                .resolve_approval(request_id, ApprovalDecision::AllowOnce)
                .is_err()
        );
        let results = tool_results(&log.seen);
        assert_eq!(results.len(), 1);
        assert_eq!(results[0]["isError"], true, "{:?}", results[0]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn allow_in_this_conversation_does_not_ask_again_for_that_tool() {
        let (session, mut log, _home) = session_calling(vec![
            ("everything__get-sum", json!({"a": 1, "b": 2})),
            ("everything__get-sum", json!({"a": 3, "b": 4})),
        ])
        .await;

        let first = session.start_prompt("add").await.unwrap();
        let question = log.wait_for(is_question).await;
        session
            .resolve_approval(
                question["notice"]["requestId"].as_u64().unwrap(),
                ApprovalDecision::AllowConversation,
            )
            .unwrap();
        first.finished().await.unwrap();
        log.wait_for_idle().await;
        session.prompt("again").await.unwrap();
        log.wait_for_idle().await;

        assert_eq!(
            log.seen
                .iter()
                .filter(|envelope| is_question(envelope))
                .count(),
            1
        );
        let results = tool_results(&log.seen);
        assert_eq!(
            results[1]["result"]["content"][0]["text"],
            "The sum of 3 and 4 is 7."
        );
    }

    /// An `mcp.json` in a folder of its own naming the reference server.
    fn config_folder() -> tempfile::TempDir {
        let folder = tempfile::tempdir().unwrap();
        let desktop_host::mcp::McpTransport::Stdio { command, args, .. } =
            everything_config().transport
        else {
            unreachable!("the reference server runs over stdio")
        };
        let mcp = json!({"mcpServers": {"everything": {"command": command, "args": args, "note": "kept"}}});
        std::fs::write(folder.path().join("mcp.json"), mcp.to_string()).unwrap();
        folder
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn always_allow_this_tool_is_kept_in_mcp_json_pinned_to_the_tools_definition() {
        let folder = config_folder();
        let (session, mut log, _home) = session_with(
            McpServers::load(Some(folder.path()), Arc::new(NoSecrets)),
            vec![("everything__get-sum", json!({"a": 1, "b": 2}))],
        )
        .await;
        let run = session.start_prompt("add").await.unwrap();
        let question = log.wait_for(is_question).await;
        session
            .resolve_approval(
                question["notice"]["requestId"].as_u64().unwrap(),
                ApprovalDecision::AllowToolAlways,
            )
            .unwrap();
        run.finished().await.unwrap();
        log.wait_for_idle().await;

        let kept: Value =
            serde_json::from_str(&std::fs::read_to_string(folder.path().join("mcp.json")).unwrap())
                .unwrap();
        let entry = &kept["mcpServers"]["everything"];
        assert_eq!(
            entry["note"], "kept",
            "the rest of the file stays as it was: {kept}"
        );
        let pinned = entry["alwaysAllow"]["get-sum"].as_str().unwrap().to_owned();
        assert_eq!(pinned.len(), 32);

        // After a restart (servers and session made anew from the file) the tool runs without asking.
        let (again, mut again_log, _home) = session_with(
            McpServers::load(Some(folder.path()), Arc::new(NoSecrets)),
            vec![("everything__get-sum", json!({"a": 3, "b": 4}))],
        )
        .await;
        again.prompt("add").await.unwrap();
        again_log.wait_for_idle().await;
        assert_eq!(
            again_log
                .seen
                .iter()
                .filter(|envelope| is_question(envelope))
                .count(),
            0
        );
        assert_eq!(
            tool_results(&again_log.seen)[0]["result"]["content"][0]["text"],
            "The sum of 3 and 4 is 7."
        );

        // A tool whose definition changed since (here: the pinned hash no longer matches) asks again.
        let mut changed = kept.clone();
        changed["mcpServers"]["everything"]["alwaysAllow"]["get-sum"] = json!("0".repeat(32));
        std::fs::write(folder.path().join("mcp.json"), changed.to_string()).unwrap();
        let (third, mut third_log, _home) = session_with(
            McpServers::load(Some(folder.path()), Arc::new(NoSecrets)),
            vec![("everything__get-sum", json!({"a": 5, "b": 6}))],
        )
        .await;
        let run = third.start_prompt("add").await.unwrap();
        third_log.wait_for(is_question).await;
        third.abort();
        run.finished().await.unwrap();
    }
}

#[test]
fn a_revoked_always_grant_is_gone_from_memory_and_from_mcp_json() {
    let folder = tempfile::tempdir().unwrap();
    let mcp = json!({"mcpServers": {"files": {"command": "node", "args": ["fs.js"],
        "alwaysAllow": {"read_file": "abc", "write_file": "def"}, "alwaysAllowServer": true, "cwd": "/tmp"}}});
    std::fs::write(folder.path().join("mcp.json"), mcp.to_string()).unwrap();
    let servers = desktop_host::mcp::McpServers::load(Some(folder.path()), Arc::new(NoSecrets));
    assert_eq!(
        servers.view().servers[0].always_allowed,
        ["read_file", "write_file"]
    );

    servers.revoke("files", Some("write_file")).unwrap();
    servers.revoke("files", None).unwrap();

    let view = servers.view();
    assert_eq!(view.servers[0].always_allowed, ["read_file"]);
    assert!(!view.servers[0].always_allow_server);
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.path().join("mcp.json")).unwrap())
            .unwrap();
    assert_eq!(
        kept,
        json!({"mcpServers": {"files": {"command": "node", "args": ["fs.js"],
            "alwaysAllow": {"read_file": "abc"}, "cwd": "/tmp"}}})
    );
    assert!(servers.revoke("nobody", None).is_err());
}
