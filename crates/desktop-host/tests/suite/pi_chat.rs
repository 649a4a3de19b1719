//! `pi-chat` as a user runs it: a real process against a loopback OpenAI-compatible server (HTTP + SSE), and
//! against the scripted model.

use std::path::Path;
use std::process::{Command, Output};

use pi_test_support::ReferenceServer;
use pi_test_support::openai::{
    MODEL, OpenAiServer, Reply, text_chunks, tool_call_chunks, unfinished_text_chunks,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::envelopes::{assistant_text, events, replay};
use crate::support::home::test_home;

/// Runs `pi-chat` with a clean environment whose only home is `home`.
async fn run_pi_chat(home: &Path, args: &[&str], extra_env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pi-chat"));
    command
        .env_clear()
        .env("HOME", home)
        .env("LANG", "C.UTF-8")
        .args(args);
    for (key, value) in extra_env {
        command.env(key, value);
    }
    tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .unwrap()
}

fn json_lines(output: &Output) -> Vec<Value> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("{line}: {error}")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pi_chat_json_shows_the_tool_call_its_pdf_listing_and_the_streamed_answer() {
    let home = test_home();
    let answer_parts = [
        "You have ",
        "two PDFs: ",
        "report.pdf and ",
        "发票 2024.PDF.",
    ];
    let server = OpenAiServer::start(vec![
        Reply::Stream(tool_call_chunks(
            "call_1",
            "list_download_files",
            &["{\"extensions\":", "[\"pdf\"]}"],
        )),
        Reply::Stream(text_chunks(&answer_parts)),
    ])
    .await
    .unwrap();
    let output = run_pi_chat(
        home.home(),
        &[
            "--prompt",
            "我的下载目录里有哪些 PDF？",
            "--json",
            "--api",
            "openai-completions",
            "--base-url",
            server.base_url(),
            "--model",
            MODEL,
            "--api-key-env",
            "TEST_MODEL_KEY",
        ],
        &[("TEST_MODEL_KEY", "sk-loopback")],
    )
    .await;
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let envelopes = json_lines(&output);
    let replayed = replay(&envelopes);
    let events = events(&envelopes);

    let tool_start = events
        .iter()
        .find(|event| event["type"] == "tool_execution_start")
        .unwrap();
    assert_eq!(tool_start["toolName"], "list_download_files");
    assert_eq!(tool_start["args"], json!({"extensions": ["pdf"]}));
    let tool_end = events
        .iter()
        .find(|event| event["type"] == "tool_execution_end")
        .unwrap();
    assert_eq!(tool_end["isError"], false);
    let listing: Value =
        serde_json::from_str(tool_end["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    let listed: Vec<&str> = listing["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(listed, vec!["report.pdf", "发票 2024.PDF"]);
    let detail_names: Vec<&str> = tool_end["result"]["details"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(detail_names, vec!["report.pdf", "发票 2024.PDF"]);

    // The answer streamed as text deltas and the replayed transcript is the run's.
    assert!(
        events
            .iter()
            .any(|event| event["assistantMessageEvent"]["type"] == "text_delta")
    );
    let final_message = replayed.messages.last().unwrap();
    assert_eq!(final_message["role"], "assistant");
    assert_eq!(assistant_text(final_message), answer_parts.concat());
    let agent_end = events
        .iter()
        .find(|event| event["type"] == "agent_end")
        .unwrap();
    assert_eq!(
        agent_end["messages"].as_array().unwrap(),
        &replayed.messages
    );
    assert_eq!(replayed.notices.last(), Some(&json!({"type": "idle"})));

    // What the server saw: the key, then the tool result sent back on the second request.
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        (requests[0].method.as_str(), requests[0].path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer sk-loopback")
    );
    let tool_names: Vec<&str> = requests[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tool_names,
        vec!["list_download_files", "list_folder", "read_document"]
    );
    let tool_message = requests[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|message| message["role"] == "tool")
        .unwrap()
        .clone();
    assert_eq!(tool_message["tool_call_id"], "call_1");
    assert!(tool_message["content"].to_string().contains("report.pdf"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pi_chat_prints_the_scripted_answer_as_text() {
    let home = test_home();
    let output = run_pi_chat(
        home.home(),
        &["--prompt", "list my pdf files", "--api", "scripted"],
        &[],
    )
    .await;
    assert!(
        output.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.starts_with("The list_download_files tool returned: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("report.pdf") && stdout.contains("发票 2024.PDF"),
        "{stdout}"
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("[list_download_files] {\"extensions\":[\"pdf\"]}"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pi_chat_with_an_unknown_api_says_what_to_set() {
    let home = test_home();
    let output = run_pi_chat(
        home.home(),
        &["--prompt", "hi", "--api", "carrier-pigeon"],
        &[],
    )
    .await;
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("unknown API \"carrier-pigeon\"") && stderr.contains("PI_API"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_stops_the_answer_and_closes_the_http_response() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;

    let home = test_home();
    let server = OpenAiServer::start(vec![Reply::Hold(unfinished_text_chunks(&[
        "Hello, ",
        "I am still ",
    ]))])
    .await
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_pi-chat"));
    command
        .env_clear()
        .env("HOME", home.home())
        .args([
            "--prompt",
            "hi",
            "--json",
            "--api",
            "openai-completions",
            "--base-url",
            server.base_url(),
        ])
        .args(["--model", MODEL])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (lines, status) = tokio::task::spawn_blocking(move || {
        let mut lines = Vec::new();
        let mut reader = BufReader::new(stdout).lines();
        // Interrupt once the answer is visibly streaming, as a user would.
        for line in reader.by_ref() {
            let line = line.unwrap();
            let streaming = line.contains("\"text_delta\"");
            lines.push(line);
            if streaming {
                let interrupted = Command::new("kill")
                    .args(["-INT", &child.id().to_string()])
                    .status()
                    .unwrap();
                assert!(interrupted.success());
                break;
            }
        }
        lines.extend(reader.map(Result::unwrap));
        (lines, child.wait().unwrap())
    })
    .await
    .unwrap();

    assert_eq!(status.code(), Some(130));
    tokio::time::timeout(std::time::Duration::from_secs(20), server.client_closed())
        .await
        .expect("the client never closed the held-open response");
    let envelopes: Vec<Value> = lines
        .iter()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let replayed = replay(&envelopes);
    let answer = replayed.messages.last().unwrap();
    assert_eq!(answer["stopReason"], "aborted");
    assert!(assistant_text(answer).starts_with("Hello, "), "{answer}");
    assert_eq!(replayed.notices.last(), Some(&json!({"type": "idle"})));
    let saved = saved_conversations(home.home());
    assert_eq!(
        saved[0]
            .1
            .last()
            .map(|(role, text)| (role.as_str(), text.starts_with("Hello, "))),
        Some(("assistant", true)),
        "the stopped answer is saved: {saved:?}"
    );
}

/// The messages (role, text) of every saved conversation of `home`, read from the app's database.
fn saved_conversations(home: &Path) -> Vec<(String, Vec<(String, String)>)> {
    let path = home
        .join(".local/share")
        .join(desktop_host::conversations::APP_IDENTIFIER)
        .join(desktop_host::store::DATABASE_FILE_NAME);
    let store = desktop_host::store::Store::open(&path).unwrap().store;
    store
        .list_conversations()
        .unwrap()
        .into_iter()
        .map(|conversation| {
            let messages = store
                .load_transcript(&conversation.id)
                .unwrap()
                .agent_messages_json()
                .iter()
                .map(|message| {
                    let text = message["content"]
                        .as_str()
                        .map_or_else(|| assistant_text(message), str::to_owned);
                    (message["role"].as_str().unwrap().to_owned(), text)
                })
                .collect();
            (conversation.id.to_string(), messages)
        })
        .collect()
}

fn said(role: &str, text: &str) -> (String, String) {
    (role.to_owned(), text.to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pi_chat_saves_its_runs_in_the_apps_database_lists_them_and_goes_on_with_one() {
    let home = test_home();
    let first = run_pi_chat(
        home.home(),
        &["--prompt", "first question", "--api", "scripted"],
        &[],
    )
    .await;
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let saved = saved_conversations(home.home());
    assert_eq!(saved.len(), 1, "{saved:?}");
    let (id, messages) = &saved[0];
    assert_eq!(
        messages,
        &vec![
            said("user", "first question"),
            said("assistant", "(scripted) You said: first question")
        ]
    );
    assert!(
        String::from_utf8_lossy(&first.stderr).contains(&format!("pi-chat --resume {id}")),
        "the terminal says how to go on"
    );

    let listed = run_pi_chat(home.home(), &["--list"], &[]).await;
    assert!(listed.status.success());
    let listed = String::from_utf8(listed.stdout).unwrap();
    assert!(
        listed.starts_with(id.as_str()) && listed.trim_end().ends_with("first question"),
        "{listed}"
    );

    let continued = run_pi_chat(
        home.home(),
        &[
            "--continue",
            "--prompt",
            "second",
            "--api",
            "scripted",
            "--json",
        ],
        &[],
    )
    .await;
    assert!(
        continued.status.success(),
        "{}",
        String::from_utf8_lossy(&continued.stderr)
    );
    assert!(
        json_lines(&continued)
            .iter()
            .all(|envelope| envelope["conversationId"] == json!(id)),
        "the envelopes name the continued conversation"
    );
    let resumed = run_pi_chat(
        home.home(),
        &["--resume", id, "--prompt", "third", "--api", "scripted"],
        &[],
    )
    .await;
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let saved = saved_conversations(home.home());
    assert_eq!(
        saved.len(),
        1,
        "no other conversation was started: {saved:?}"
    );
    assert_eq!(
        saved[0]
            .1
            .iter()
            .map(|(_, text)| text.as_str())
            .collect::<Vec<_>>(),
        vec![
            "first question",
            "(scripted) You said: first question",
            "second",
            "(scripted) You said: second",
            "third",
            "(scripted) You said: third",
        ]
    );

    let unknown = run_pi_chat(
        home.home(),
        &[
            "--resume",
            "no-such-conversation",
            "--prompt",
            "hi",
            "--api",
            "scripted",
        ],
        &[],
    )
    .await;
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("pi-chat --list"),
        "{}",
        String::from_utf8_lossy(&unknown.stderr)
    );
}

/// Writes `home`'s `mcp.json` naming the reference MCP server (installed by `npm ci --prefix tests/mcp`).
fn configure_the_reference_server(home: &Path) {
    ReferenceServer::find()
        .and_then(|server| server.write_mcp_json(&home.join(".config/pi-desktop")))
        .unwrap_or_else(|error| panic!("{error}"));
}

/// pi-chat asking the loopback model, which calls `everything__get-sum` once and then answers.
async fn pi_chat_adding(home: &Path, extra_args: &[&str]) -> (Output, OpenAiServer) {
    let server = OpenAiServer::start(vec![
        Reply::Stream(tool_call_chunks(
            "call_1",
            "everything__get-sum",
            &[r#"{"a": 2, "b": 3}"#],
        )),
        Reply::Stream(text_chunks(&["Done."])),
    ])
    .await
    .unwrap();
    let mut args = vec![
        "--prompt",
        "add 2 and 3",
        "--api",
        "openai-completions",
        "--base-url",
        server.base_url(),
        "--model",
        MODEL,
        "--api-key-env",
        "TEST_MODEL_KEY",
    ];
    args.extend_from_slice(extra_args);
    let output = run_pi_chat(home, &args, &[("TEST_MODEL_KEY", "sk-loopback")]).await;
    (output, server)
}

fn tool_result_texts(server: &OpenAiServer) -> Vec<String> {
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_yes_pi_chat_runs_an_mcp_tool_and_json_shows_the_question_and_its_answer() {
    let home = test_home();
    configure_the_reference_server(home.home());

    let (output, server) = pi_chat_adding(home.home(), &["--yes", "--json"]).await;

    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        tool_result_texts(&server),
        vec!["The sum of 2 and 3 is 5.".to_owned()]
    );
    let notices: Vec<Value> = json_lines(&output)
        .into_iter()
        .filter(|envelope| envelope["kind"] == "notice")
        .map(|envelope| envelope["notice"].clone())
        .collect();
    assert!(
        notices
            .iter()
            .any(|notice| notice["type"] == "approval_requested" && notice["tool"] == "get-sum")
    );
    assert!(
        notices
            .iter()
            .any(|notice| notice["type"] == "approval_resolved" && notice["outcome"] == "allowed")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_terminal_and_without_yes_an_mcp_call_is_denied_naming_yes_and_nothing_hangs() {
    let home = test_home();
    configure_the_reference_server(home.home());

    let (output, server) = pi_chat_adding(home.home(), &[]).await;

    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let refusals = tool_result_texts(&server);
    assert_eq!(refusals.len(), 1);
    assert!(
        refusals[0].starts_with("The user denied this call of get-sum")
            && refusals[0].contains("--yes"),
        "{refusals:?}"
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("pass --yes to allow tool calls"));
    assert!(String::from_utf8_lossy(&output.stdout).contains("Done."));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_tools_prints_the_built_in_tools_and_each_servers_state_and_tools() {
    let home = test_home();
    configure_the_reference_server(home.home());

    let output = run_pi_chat(home.home(), &["--list-tools"], &[]).await;

    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed = String::from_utf8(output.stdout).unwrap();
    assert!(
        listed.starts_with("list_download_files  (built in)\n"),
        "{listed}"
    );
    assert!(listed.contains("[everything] ready: "), "{listed}");
    assert!(listed.contains("\neverything__get-sum  ("), "{listed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inspect_prints_the_runs_exit_and_a_line_per_turn_after_the_answer() {
    let home = test_home();
    let server = OpenAiServer::start(vec![
        Reply::Stream(tool_call_chunks(
            "call_1",
            "list_download_files",
            &["{\"extensions\":[\"pdf\"]}"],
        )),
        Reply::Stream(text_chunks(&["Two PDFs."])),
    ])
    .await
    .unwrap();
    let args = |json: bool| {
        let mut args = vec![
            "--prompt",
            "Which PDFs are in my Downloads?",
            "--inspect",
            "--api",
            "openai-completions",
            "--base-url",
            server.base_url(),
            "--model",
            MODEL,
            "--api-key-env",
            "TEST_MODEL_KEY",
        ];
        if json {
            args.push("--json");
        }
        args.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };

    let text_args = args(false);
    let text_args: Vec<&str> = text_args.iter().map(String::as_str).collect();
    let output = run_pi_chat(
        home.home(),
        &text_args,
        &[("TEST_MODEL_KEY", "sk-loopback")],
    )
    .await;

    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    let inspected: Vec<&str> = stdout
        .lines()
        .filter(|line| line.starts_with("[inspect]"))
        .collect();
    assert_eq!(inspected.len(), 3, "{stdout}");
    assert!(
        inspected[0].starts_with("[inspect] run: 2 turn(s), exit done"),
        "{stdout}"
    );
    assert!(inspected[1].contains("stop toolUse"), "{stdout}");
    assert!(
        inspected[1].contains("list_download_files done"),
        "{stdout}"
    );
    assert!(
        inspected[1].contains(&format!("to {MODEL}")),
        "what was sent: {stdout}"
    );
    assert!(inspected[2].contains("stop stop"), "{stdout}");
    let answer_at = stdout.find("Two PDFs.").unwrap();
    assert!(
        answer_at < stdout.find("[inspect]").unwrap(),
        "after the answer"
    );

    // With --json: one inspection line among the envelopes, after the run's idle.
    let server_again = OpenAiServer::start(vec![Reply::Stream(text_chunks(&["Plain."]))])
        .await
        .unwrap();
    let json_args: Vec<String> = args(true)
        .into_iter()
        .map(|arg| {
            if arg == server.base_url() {
                server_again.base_url().to_owned()
            } else {
                arg
            }
        })
        .collect();
    let json_args: Vec<&str> = json_args.iter().map(String::as_str).collect();
    let output = run_pi_chat(
        home.home(),
        &json_args,
        &[("TEST_MODEL_KEY", "sk-loopback")],
    )
    .await;
    let lines = json_lines(&output);
    let inspections: Vec<&Value> = lines
        .iter()
        .filter(|line| line["kind"] == "inspection")
        .collect();
    assert_eq!(inspections.len(), 1);
    assert_eq!(inspections[0]["run"]["exit"], "done");
    assert_eq!(inspections[0]["run"]["turns"].as_array().unwrap().len(), 1);
    let idle_at = lines
        .iter()
        .position(|line| line["notice"]["type"] == "idle")
        .unwrap();
    assert_eq!(lines[idle_at + 1]["kind"], "inspection");
}
