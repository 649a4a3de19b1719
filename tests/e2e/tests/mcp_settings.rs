//! Settings → Tools & servers in the real window, against the real reference server (`@modelcontextprotocol/
//! server-everything`, installed by the ladder from `tests/mcp/package-lock.json`): a server added through the form
//! becomes ready and lists `get-sum`; turning `get-sum` off puts it in `mcp.json`'s `disabledTools`; removing the
//! server takes it out of the file and ends its process; quitting the app ends a running server's process.
//!
//! Each server runs in a working folder of its own, so the test finds its processes by their `/proc/PID/cwd`.

use std::path::Path;
use std::time::{Duration, Instant};

use fantoccini::Locator;
use fantoccini::key::Key;
use pi_desktop_e2e::{AppUnderTest, LaunchOptions};
use pi_test_support::ReferenceServer;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// How long a server's processes may take to end once the app ended it.
const END_DEADLINE: Duration = Duration::from_secs(10);

fn reference_server() -> ReferenceServer {
    ReferenceServer::find().unwrap_or_else(|error| panic!("{error}"))
}

/// A folder no other process works in.
fn working_folder() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("pi-desktop-e2e-mcp-cwd-")
        .tempdir()
        .unwrap()
}

/// The processes whose working folder is `folder`.
fn processes_in(folder: &Path) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        // A process may exit while we look: an unreadable entry is simply not there.
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == folder))
        .collect()
}

async fn wait_until_no_process_in(folder: &Path) {
    let started = Instant::now();
    while !processes_in(folder).is_empty() {
        assert!(
            started.elapsed() < END_DEADLINE,
            "the server's processes outlived it: {:?}",
            processes_in(folder)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn mcp_json(app_home: &Path) -> Value {
    let path = app_home.join(".config/pi-desktop/mcp.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

async fn open_tools_and_servers(app: &AppUnderTest) {
    app.find_test_id("settings-button")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    app.find_test_id("mcp-settings").await.unwrap();
}

async fn type_into(app: &AppUnderTest, test_id: &str, text: &str) {
    app.find_test_id(test_id)
        .await
        .unwrap()
        .send_keys(text)
        .await
        .unwrap();
}

/// Clicks the element `css` finds inside the server `name`.
async fn click_in_server(app: &AppUnderTest, name: &str, css: &str) {
    app.wait_for_css(&format!(
        r#"[data-testid="mcp-server"][data-name="{name}"] {css}"#
    ))
    .await
    .unwrap()
    .click()
    .await
    .unwrap();
}

#[tokio::test]
async fn a_server_added_in_the_settings_becomes_ready_a_tool_turned_off_is_kept_and_remove_ends_it()
{
    let reference = reference_server();
    let folder = working_folder();
    let app = AppUnderTest::launch(LaunchOptions::default())
        .await
        .unwrap();
    open_tools_and_servers(&app).await;
    app.find_test_id("mcp-none").await.unwrap();

    app.find_test_id("mcp-add")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    app.find_test_id("mcp-server-form").await.unwrap();
    type_into(&app, "mcp-form-name", "everything").await;
    type_into(
        &app,
        "mcp-form-command",
        &reference.node.display().to_string(),
    )
    .await;
    // One argument per line: WebDriver types a line break as the Enter key, not as "\n".
    let line_break = char::from(Key::Enter).to_string();
    type_into(&app, "mcp-form-args", &reference.args.join(&line_break)).await;
    type_into(&app, "mcp-form-cwd", &folder.path().display().to_string()).await;
    app.find_test_id("mcp-form-save")
        .await
        .unwrap()
        .click()
        .await
        .unwrap();

    app.wait_for_css(r#"[data-testid="mcp-server"][data-name="everything"]"#)
        .await
        .unwrap();
    assert_eq!(
        mcp_json(app.home()),
        json!({"mcpServers": {"everything": {
            "command": reference.node.display().to_string(),
            "args": reference.args,
            "cwd": folder.path().display().to_string(),
        }}})
    );
    // Ready, and the window learned so by itself (it asked nothing after the save).
    app.wait_for_css(r#"[data-testid="mcp-server"][data-name="everything"][data-state="ready"]"#)
        .await
        .unwrap();
    app.wait_for_css(
        r#"[data-testid="mcp-server"][data-name="everything"] [data-testid="mcp-tool"][data-name="get-sum"]"#,
    )
    .await
    .unwrap();
    assert!(
        !processes_in(folder.path()).is_empty(),
        "the server runs in its working folder"
    );
    let launch = app
        .wait_for_css(
            r#"[data-testid="mcp-server"][data-name="everything"] [data-testid="mcp-launch"]"#,
        )
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(
        launch,
        format!("{} {}", reference.node.display(), reference.args.join(" "))
    );
    app.screenshot("mcp-settings-server-added").await.unwrap();

    click_in_server(
        &app,
        "everything",
        r#"[data-testid="mcp-tool"][data-name="get-sum"] [data-testid="mcp-tool-toggle"]"#,
    )
    .await;

    app.wait_for_css(r#"[data-testid="mcp-tool"][data-name="get-sum"][data-enabled="false"]"#)
        .await
        .unwrap();
    assert_eq!(
        mcp_json(app.home()),
        json!({"mcpServers": {"everything": {
            "command": reference.node.display().to_string(),
            "args": reference.args,
            "cwd": folder.path().display().to_string(),
            "disabledTools": ["get-sum"],
        }}})
    );
    let still_ready = app
        .client()
        .find_all(Locator::Css(
            r#"[data-testid="mcp-server"][data-name="everything"][data-state="ready"]"#,
        ))
        .await
        .unwrap();
    assert_eq!(
        still_ready.len(),
        1,
        "a tool turned off keeps the server running"
    );

    click_in_server(&app, "everything", r#"[data-testid="mcp-remove"]"#).await;
    click_in_server(&app, "everything", r#"[data-testid="mcp-remove-confirm"]"#).await;

    app.find_test_id("mcp-none").await.unwrap();
    assert_eq!(mcp_json(app.home()), json!({"mcpServers": {}}));
    wait_until_no_process_in(folder.path()).await;
    app.close().await.unwrap();
}

#[tokio::test]
async fn quitting_the_app_ends_a_running_servers_processes() {
    let reference = reference_server();
    let folder = working_folder();
    let home = pi_desktop_e2e::new_home().unwrap();
    let config = home.path().join(".config/pi-desktop");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("mcp.json"),
        json!({"mcpServers": {"everything": {
            "command": reference.node.display().to_string(),
            "args": reference.args,
            "cwd": folder.path().display().to_string(),
        }}})
        .to_string(),
    )
    .unwrap();
    let app = AppUnderTest::launch_in(home, LaunchOptions::default())
        .await
        .unwrap();
    open_tools_and_servers(&app).await;
    app.wait_for_css(r#"[data-testid="mcp-server"][data-name="everything"][data-state="ready"]"#)
        .await
        .unwrap();
    assert!(!processes_in(folder.path()).is_empty());

    // SIGTERM, as a logout sends: the app exits through its normal path.
    let _home = app.terminate().await.unwrap();

    assert_eq!(
        processes_in(folder.path()),
        Vec::<i32>::new(),
        "ended before the app exited"
    );
}
