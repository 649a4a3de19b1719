//! MCP servers as tool sources, against the real reference server (`@modelcontextprotocol/server-everything`,
//! pinned by `tests/mcp/package-lock.json` and installed by the test ladder) over stdio: the handshake and the
//! tool list, calls through the agent loop with the scripted model (a sum, an image, structured content), progress
//! on the tool card, Stop during a long operation, and a server whose program does not exist.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use desktop_host::mcp::{McpClient, McpError, McpServerConfig, RmcpClient, mcp_agent_tools};
use pi_agent::{Agent, AgentEvent, AgentInitialState, AgentOptions, HookError};
use pi_ai::ToolCall;
use pi_ai::scripted::{ScriptedProvider, text_message, tool_call_message};
use serde_json::{Value, json};

/// The installed entry point of the reference server (`npm ci --prefix tests/mcp` installs it).
fn everything_entry_point() -> PathBuf {
    let entry = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        entry.is_file(),
        "{} is missing: run `npm ci --prefix tests/mcp` (scripts/test-all.sh does)",
        entry.display()
    );
    entry
}

fn everything_config() -> McpServerConfig {
    McpServerConfig::stdio(
        "everything",
        "node",
        vec![
            everything_entry_point().display().to_string(),
            "stdio".to_owned(),
        ],
    )
}

async fn everything() -> Arc<dyn McpClient> {
    Arc::new(RmcpClient::start(&everything_config()).await.unwrap())
}

/// Runs one prompt through an agent whose only tools are `client`'s and whose scripted model first calls
/// `tool` with `arguments`, then answers "done"; returns every event.
async fn run_through_the_agent(
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
        tools: mcp_agent_tools(&[client], &[], true),
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

fn tool_end(events: &[Arc<AgentEvent>]) -> (Value, bool) {
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

    let names: Vec<&str> = client
        .tools()
        .iter()
        .map(|tool| tool.name.as_str())
        .collect();
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
    let tools = mcp_agent_tools(&[Arc::clone(&client)], &[], true);
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
    let error = RmcpClient::start(&config).await.err().unwrap();

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
        env.insert("TOKEN".to_owned(), "sk-secret-value".to_owned());
    }

    let error = RmcpClient::start(&config).await.err().unwrap();

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
