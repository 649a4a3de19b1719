//! The life of MCP servers: a server killed while a call waits (the call fails with its reason, the supervisor
//! restarts it), a handshake or a call never answered (the timeouts), junk on stdout, `tools/list_changed`
//! (re-listed; a changed definition is no longer covered by its "always" grant), `mcp.json` read again, restart,
//! shutdown ending the process, streamable HTTP on loopback with a header from the keychain, and the filesystem
//! reference server's claims and refusals.
//!
//! The servers are real processes: the reference server (`tests/mcp`, installed by the ladder) and a small stub
//! of ours (`tests/mcp/stub/stub-server.mjs`) for the cases no reference server shows on demand.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use desktop_host::approval::AlwaysGrants;
use desktop_host::mcp::{
    ConfigValue, McpClient, McpConfig, McpError, McpSecrets, McpServerConfig, McpServerState,
    McpServers, McpTransport, NoSecrets, RmcpClient, mcp_agent_tools,
};
use pi_agent::{AgentEvent, ToolUpdateSink};
use pi_test_support::ReferenceServer;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::mcp::{run_through_the_agent, tool_end};

/// How long a test waits for a server to reach a state before it fails.
const PATIENCE: Duration = Duration::from_secs(60);

fn node() -> PathBuf {
    ReferenceServer::find()
        .unwrap_or_else(|error| panic!("{error}"))
        .node
}

fn stub_script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp/stub/stub-server.mjs")
        .display()
        .to_string()
}

/// The stub server as `name`, with `flags`; its process id goes to `pid_file` when given.
fn stub(name: &str, flags: &[&str], pid_file: Option<&Path>) -> McpServerConfig {
    let mut args = vec![stub_script()];
    args.extend(flags.iter().map(|flag| (*flag).to_owned()));
    let mut config = McpServerConfig::stdio(name, node().display().to_string(), args);
    if let (Some(pid_file), McpTransport::Stdio { env, .. }) = (pid_file, &mut config.transport) {
        env.insert(
            "STUB_PID_FILE".to_owned(),
            ConfigValue::plain(pid_file.display().to_string()),
        );
    }
    config
}

fn servers(configs: Vec<McpServerConfig>) -> Arc<McpServers> {
    Arc::new(McpServers::from_config(
        McpConfig { servers: configs },
        Vec::new(),
        Arc::new(NoSecrets),
    ))
}

fn state_of(servers: &McpServers, name: &str) -> Option<McpServerState> {
    servers
        .states()
        .into_iter()
        .find(|(server, _)| server == name)
        .map(|(_, state)| state)
}

/// Waits until `name`'s state passes `wanted` (every change is looked at, so a passing state is not missed).
async fn wait_for_state(
    servers: &McpServers,
    name: &str,
    wanted: impl Fn(&McpServerState) -> bool,
) -> McpServerState {
    let mut changes = servers.changes();
    let waited = tokio::time::timeout(PATIENCE, async {
        loop {
            if let Some(state) = state_of(servers, name).filter(|state| wanted(state)) {
                return state;
            }
            changes.changed().await.expect("the servers are alive");
        }
    })
    .await;
    waited.unwrap_or_else(|_| {
        panic!(
            "{name} never reached the state wanted; it is {:?}",
            state_of(servers, name)
        )
    })
}

fn read_pid(pid_file: &Path) -> u32 {
    std::fs::read_to_string(pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// True while the process `pid` exists and is not a zombie.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

fn ready_client(servers: &McpServers, name: &str) -> Arc<dyn McpClient> {
    servers
        .ready()
        .into_iter()
        .find(|server| server.client.server_name() == name)
        .map(|server| server.client)
        .expect("the server is ready")
}

fn no_progress() -> ToolUpdateSink {
    ToolUpdateSink::detached()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_during_a_call_fails_the_call_with_why_and_is_restarted() {
    let folder = tempfile::tempdir().unwrap();
    let pid_file = folder.path().join("stub.pid");
    let servers = servers(vec![stub("stub", &[], Some(&pid_file))]);
    servers.start_all().await;
    assert_eq!(state_of(&servers, "stub"), Some(McpServerState::Ready));
    let first_pid = read_pid(&pid_file);
    let client = ready_client(&servers, "stub");

    let call = {
        let client = Arc::clone(&client);
        tokio::spawn(async move {
            client
                .call("hang", json!({}), no_progress(), CancellationToken::new())
                .await
        })
    };
    // The call is on its way once the server could have read it; killing the whole process is the crash.
    let killed = std::process::Command::new("kill")
        .args(["-9", &first_pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let outcome = tokio::time::timeout(PATIENCE, call).await.unwrap().unwrap();

    let error = outcome.expect_err("a killed server answers nothing");
    assert!(matches!(error, McpError::Closed { .. }), "{error}");
    assert!(
        error
            .to_string()
            .starts_with("MCP server \"stub\" is not running: "),
        "{error}"
    );
    let later = client
        .call(
            "echo",
            json!({"text": "hi"}),
            no_progress(),
            CancellationToken::new(),
        )
        .await;
    assert!(
        matches!(later, Err(McpError::Closed { .. })),
        "a dead server's calls fail at once: {later:?}"
    );

    wait_for_state(&servers, "stub", |state| {
        matches!(state, McpServerState::Restarting { attempt: 1 })
    })
    .await;
    wait_for_state(&servers, "stub", |state| *state == McpServerState::Ready).await;
    let restarted = ready_client(&servers, "stub");
    let echoed = restarted
        .call(
            "echo",
            json!({"text": "back"}),
            no_progress(),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(echoed["content"][0]["text"], "back");
    assert_ne!(read_pid(&pid_file), first_pid);
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_the_handshake_fails_after_its_start_timeout() {
    let mut config = stub("silent", &["--silent"], None);
    config.start_timeout = Duration::from_secs(1);

    let error = RmcpClient::start(&config, &NoSecrets).await.err().unwrap();

    assert!(matches!(error, McpError::Handshake { .. }), "{error}");
    assert_eq!(
        error.to_string(),
        "MCP server \"silent\" did not start: no answer within 1 s"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_never_answered_ends_with_the_timeout_and_the_server_stays_usable() {
    let mut config = stub("stub", &[], None);
    config.call_timeout = Duration::from_secs(1);
    let client = RmcpClient::start(&config, &NoSecrets).await.unwrap();

    let error = client
        .call("hang", json!({}), no_progress(), CancellationToken::new())
        .await
        .unwrap_err();

    assert!(matches!(error, McpError::Timeout { .. }), "{error}");
    assert_eq!(
        error.to_string(),
        "MCP server \"stub\" did not answer hang in time (1 s without an answer or progress)"
    );
    let echoed = client
        .call(
            "echo",
            json!({"text": "still here"}),
            no_progress(),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(echoed["content"][0]["text"], "still here");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_tells_the_server_the_call_is_cancelled_and_its_late_progress_is_dropped() {
    let client: Arc<dyn McpClient> = Arc::new(
        RmcpClient::start(&stub("stub", &[], None), &NoSecrets)
            .await
            .unwrap(),
    );
    let updates_seen = std::sync::atomic::AtomicUsize::new(0);

    let events =
        run_through_the_agent(Arc::clone(&client), "stub__slow", json!({}), move |event| {
            matches!(event, AgentEvent::ToolExecutionUpdate { .. })
                && updates_seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 2
        })
        .await;

    let (result, is_error) = tool_end(&events);
    assert!(is_error, "a stopped call is an error result: {result}");
    let end = events
        .iter()
        .position(|event| matches!(event.as_ref(), AgentEvent::ToolExecutionEnd { .. }))
        .unwrap();
    assert!(
        !events[end..]
            .iter()
            .any(|event| matches!(event.as_ref(), AgentEvent::ToolExecutionUpdate { .. })),
        "no progress after the card ended"
    );
    // The server handles messages in order: by the time it answers this, it has seen the cancellation (and sent
    // the late progress that was dropped).
    let told = client
        .call(
            "cancelled",
            json!({}),
            no_progress(),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    let ids: Vec<serde_json::Value> =
        serde_json::from_str(told["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(ids.len(), 1, "the server was told once: {ids:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn junk_on_stdout_is_skipped_and_the_answers_between_it_are_read() {
    let client = RmcpClient::start(&stub("noisy", &["--junk"], None), &NoSecrets)
        .await
        .unwrap();

    assert_eq!(client.tools().len(), 5);
    let echoed = client
        .call(
            "echo",
            json!({"text": "through the noise"}),
            no_progress(),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(echoed["content"][0]["text"], "through the noise");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_relists_the_tools_and_a_changed_definition_loses_its_always_grant() {
    let servers = servers(vec![stub("stub", &[], None)]);
    servers.start_all().await;
    let client = ready_client(&servers, "stub");
    let echo_before = mcp_agent_tools(&servers.ready(), &[], true)
        .into_iter()
        .find(|tool| tool.info().name == "echo")
        .unwrap()
        .approval_ref();
    servers.grant_always(&echo_before, false);
    assert!(servers.always_allows(&echo_before));

    let mut changes = servers.changes();
    changes.borrow_and_update();
    client
        .call("grow", json!({}), no_progress(), CancellationToken::new())
        .await
        .unwrap();
    tokio::time::timeout(PATIENCE, async {
        while !client.tools().iter().any(|tool| tool.name == "extra") {
            changes.changed().await.unwrap();
        }
    })
    .await
    .expect("the tools were re-listed after tools/list_changed");

    let tools = mcp_agent_tools(&servers.ready(), &[], true);
    let names: Vec<&str> = tools.iter().map(|tool| tool.info().name.as_str()).collect();
    assert_eq!(
        names,
        ["echo", "hang", "grow", "slow", "cancelled", "extra"]
    );
    let echo_after = tools
        .iter()
        .find(|tool| tool.info().name == "echo")
        .unwrap()
        .approval_ref();
    assert_ne!(echo_after.definition, echo_before.definition);
    assert!(
        !servers.always_allows(&echo_after),
        "a tool whose description changed asks again"
    );
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_ends_the_server_process_and_nothing_restarts_it() {
    let folder = tempfile::tempdir().unwrap();
    let pid_file = folder.path().join("stub.pid");
    let servers = servers(vec![stub("stub", &[], Some(&pid_file))]);
    servers.start_all().await;
    let pid = read_pid(&pid_file);
    assert!(alive(pid));

    servers.shutdown().await;

    assert!(!alive(pid), "the server process {pid} outlived shutdown");
    assert!(servers.ready().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_json_read_again_starts_ends_and_keeps_servers_and_a_failed_one_can_be_retried() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("mcp.json");
    let pid_file = folder.path().join("kept.pid");
    let write = |servers: serde_json::Value| {
        std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    };
    let entry = |flags: &[&str], pid: Option<&Path>| {
        let mut args = vec![json!(stub_script())];
        args.extend(flags.iter().map(|flag| json!(flag)));
        let mut entry = json!({"command": node().display().to_string(), "args": args});
        if let Some(pid) = pid {
            entry["env"] = json!({"STUB_PID_FILE": pid.display().to_string()});
        }
        entry
    };
    write(json!({
        "kept": entry(&[], Some(&pid_file)),
        "gone": entry(&[], None),
        "ghost": {"command": "pi-desktop-no-such-mcp-server"},
    }));
    let servers = Arc::new(McpServers::load(Some(folder.path()), Arc::new(NoSecrets)));
    servers.start_all().await;
    let kept_pid = read_pid(&pid_file);
    assert!(matches!(
        state_of(&servers, "ghost"),
        Some(McpServerState::Failed { .. })
    ));

    let mut kept = entry(&[], Some(&pid_file));
    kept["disabledTools"] = json!(["hang"]);
    write(json!({
        "kept": kept,
        "off": {"command": "node", "disabled": true},
        "new": entry(&["--junk"], None),
        "ghost": {"command": "pi-desktop-no-such-mcp-server"},
    }));
    servers.reload().await.unwrap();
    wait_for_state(&servers, "new", |state| *state == McpServerState::Ready).await;

    let names: Vec<String> = servers.states().into_iter().map(|(name, _)| name).collect();
    assert_eq!(names, ["kept", "off", "new", "ghost"]);
    assert_eq!(state_of(&servers, "off"), Some(McpServerState::Disabled));
    assert_eq!(
        read_pid(&pid_file),
        kept_pid,
        "an unchanged launch keeps running"
    );
    let kept_tools: Vec<String> = mcp_agent_tools(&servers.ready(), &[], true)
        .iter()
        .filter(|tool| tool.server_name() == "kept")
        .map(|tool| tool.info().name.clone())
        .collect();
    assert_eq!(
        kept_tools,
        ["echo", "grow", "slow", "cancelled"],
        "a turned-off tool is left out"
    );
    let view = servers.view();
    let hang = view.servers[0]
        .tools
        .iter()
        .find(|tool| tool.name == "hang")
        .unwrap();
    assert!(!hang.enabled, "the settings still list it, turned off");

    servers.restart("ghost").await.unwrap();
    wait_for_state(&servers, "ghost", |state| {
        matches!(state, McpServerState::Failed { .. })
    })
    .await;
    assert!(servers.restart("off").await.is_err());
    assert!(servers.restart("nobody").await.is_err());

    std::fs::write(&path, "{\"mcpServers\": ").unwrap();
    let refused = servers.reload().await.unwrap_err();
    assert!(refused.to_string().contains("not valid JSON"), "{refused}");
    assert_eq!(
        servers.states().len(),
        4,
        "an unusable file changes nothing"
    );
    servers.shutdown().await;
}

/// The reference server's streamable HTTP transport on a free loopback port, and that port.
struct HttpServer {
    child: tokio::process::Child,
    port: u16,
}

impl HttpServer {
    async fn start() -> HttpServer {
        use tokio::io::AsyncBufReadExt;

        let reference = ReferenceServer::find().unwrap_or_else(|error| panic!("{error}"));
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .unwrap()
            .port();
        let mut child = tokio::process::Command::new(&reference.node)
            .arg(&reference.args[0])
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let mut lines = tokio::io::BufReader::new(stderr).lines();
        tokio::time::timeout(PATIENCE, async {
            while let Some(line) = lines.next_line().await.unwrap() {
                if line.contains("listening on port") {
                    return;
                }
            }
            panic!("the HTTP server ended before it listened");
        })
        .await
        .expect("the HTTP server listens");
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        HttpServer { child, port }
    }
}

struct Keychain(BTreeMap<String, String>);

impl McpSecrets for Keychain {
    fn secret(&self, name: &str) -> Result<Option<String>, String> {
        Ok(self.0.get(name).cloned())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_on_loopback_lists_and_calls_with_a_header_from_the_keychain() {
    let mut server = HttpServer::start().await;
    let mut config = McpServerConfig::stdio("remote", "unused", Vec::new());
    config.transport = McpTransport::Http {
        url: format!("http://127.0.0.1:{}/mcp", server.port),
        headers: BTreeMap::from([(
            "X-Api-Key".to_owned(),
            ConfigValue::Keychain {
                keychain: "mcp.remote.X-Api-Key".to_owned(),
            },
        )]),
    };

    let missing = RmcpClient::start(&config, &NoSecrets).await.err().unwrap();
    assert!(
        matches!(missing, McpError::MissingSecret { .. }),
        "{missing}"
    );
    assert!(
        missing.to_string().contains("headers.X-Api-Key"),
        "{missing}"
    );

    let keychain = Keychain(BTreeMap::from([(
        "mcp.remote.X-Api-Key".to_owned(),
        "key-from-the-keychain".to_owned(),
    )]));
    let client = RmcpClient::start(&config, &keychain).await.unwrap();
    assert!(client.tools().iter().any(|tool| tool.name == "get-sum"));
    let sum = client
        .call(
            "get-sum",
            json!({"a": 20, "b": 22}),
            no_progress(),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(sum["content"][0]["text"], "The sum of 20 and 22 is 42.");
    client.shutdown().await;
    server.child.kill().await.unwrap();
}

/// The filesystem reference server over stdio, allowed `folder` only.
fn filesystem_server(folder: &Path) -> McpServerConfig {
    let entry = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    assert!(
        entry.is_file(),
        "{} is missing: run `npm ci --prefix tests/mcp`",
        entry.display()
    );
    McpServerConfig::stdio(
        "files",
        node().display().to_string(),
        vec![entry.display().to_string(), folder.display().to_string()],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_filesystem_server_claims_are_kept_as_claims_and_a_refusal_is_an_error_result() {
    let allowed = tempfile::tempdir().unwrap();
    std::fs::write(allowed.path().join("notes.txt"), "kettle on the shelf").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "not for the model").unwrap();
    let client: Arc<dyn McpClient> = Arc::new(
        RmcpClient::start(&filesystem_server(allowed.path()), &NoSecrets)
            .await
            .unwrap(),
    );

    let tools = client.tools();
    let claim = |name: &str| {
        let tool = tools.iter().find(|tool| tool.name == name).unwrap();
        (tool.read_only_hint, tool.destructive_hint)
    };
    assert_eq!(claim("read_text_file"), (true, false));
    assert!(claim("write_file").1, "write_file says it may destroy data");
    let write_file = mcp_agent_tools(&[Arc::clone(&client).into()], &[], true)
        .into_iter()
        .find(|tool| tool.info().name == "write_file")
        .unwrap()
        .approval_ref();
    assert!(write_file.destructive_claim);

    let inside = run_through_the_agent(
        Arc::clone(&client),
        "files__read_text_file",
        json!({"path": allowed.path().join("notes.txt")}),
        |_| false,
    )
    .await;
    let (result, is_error) = tool_end(&inside);
    assert!(!is_error, "{result}");
    assert_eq!(result["content"][0]["text"], "kettle on the shelf");

    let refused = run_through_the_agent(
        client,
        "files__read_text_file",
        json!({"path": outside.path().join("secret.txt")}),
        |_| false,
    )
    .await;
    let (result, is_error) = tool_end(&refused);
    assert!(is_error, "a refusal is an error result: {result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("Access denied"), "{text}");
    assert!(!text.contains("not for the model"));
}
