//! The app as an installed desktop app: its window comes back where the user left it (and never off-screen or
//! tiny), a second launch hands over to the running app, and without a session bus the app still starts.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use pi_desktop_e2e::{AppUnderTest, LaunchOptions};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::session_bus::SessionBus;

/// Where the app keeps the window geometry: `$XDG_CONFIG_HOME/pi-desktop/window-state.json`, and the harness
/// points `XDG_CONFIG_HOME` at `<home>/.config`.
fn window_state_file(home: &Path) -> PathBuf {
    home.join(".config/pi-desktop/window-state.json")
}

/// How long a window-manager request may take to show in the window's rectangle.
const RECT_DEADLINE: Duration = Duration::from_secs(10);
const RECT_POLL: Duration = Duration::from_millis(50);
/// How long a second launch may take to hand over and exit.
const SECOND_LAUNCH_DEADLINE: Duration = Duration::from_secs(30);

/// The window's rectangle as WebDriver reports it: x, y, width, height.
async fn window_rect(app: &AppUnderTest) -> (u64, u64, u64, u64) {
    app.client().get_window_rect().await.unwrap()
}

/// Waits until the window's rectangle is `wanted`; fails with the last one seen.
async fn wait_for_rect(app: &AppUnderTest, wanted: (u64, u64, u64, u64)) {
    let started = Instant::now();
    loop {
        let rect = window_rect(app).await;
        if rect == wanted {
            return;
        }
        assert!(
            started.elapsed() < RECT_DEADLINE,
            "the window is at {rect:?}, not {wanted:?}, after {RECT_DEADLINE:?}"
        );
        tokio::time::sleep(RECT_POLL).await;
    }
}

/// Everything the app logged into its log folder under `home` (the `pi-desktop.*.log` files).
fn logged_text(home: &Path) -> String {
    fn collect(folder: &Path, text: &mut String) {
        let Ok(entries) = std::fs::read_dir(folder) else {
            return;
        };
        for path in entries.filter_map(Result::ok).map(|entry| entry.path()) {
            let is_log = path.file_name().is_some_and(|name| {
                let name = name.to_string_lossy();
                name.starts_with("pi-desktop.") && name.ends_with(".log")
            });
            if path.is_dir() {
                collect(&path, text);
            } else if is_log {
                text.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    let mut text = String::new();
    collect(home, &mut text);
    text
}

#[tokio::test]
async fn the_window_reopens_with_the_size_and_position_it_had_when_the_app_quit() {
    let app = AppUnderTest::launch(LaunchOptions::default())
        .await
        .unwrap();
    app.find_test_id("composer-input").await.unwrap();
    let moved = (70, 50, 900, 620);
    assert_ne!(
        window_rect(&app).await,
        moved,
        "the test must change the geometry"
    );

    app.client()
        .set_window_rect(70, 50, 900, 620)
        .await
        .unwrap();
    wait_for_rect(&app, moved).await;
    let home = app.terminate().await.unwrap();

    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(window_state_file(home.path())).unwrap())
            .unwrap();
    assert_eq!(
        saved,
        json!({"x": 70, "y": 50, "width": 900, "height": 620, "maximized": false})
    );

    let again = AppUnderTest::launch_in(home, LaunchOptions::default())
        .await
        .unwrap();
    again.find_test_id("composer-input").await.unwrap();
    assert_eq!(window_rect(&again).await, moved);
    again.screenshot("window-state-restored").await.unwrap();
    again.close().await.unwrap();
}

#[tokio::test]
async fn a_saved_position_off_every_monitor_and_a_tiny_size_reopen_on_screen_at_the_minimum_size() {
    let home = pi_desktop_e2e::new_home().unwrap();
    let state_file = window_state_file(home.path());
    std::fs::create_dir_all(state_file.parent().unwrap()).unwrap();
    // As if saved on a large monitor right of this one, which is now unplugged, and shrunk below the minimum.
    std::fs::write(
        &state_file,
        json!({"x": 5000, "y": 3000, "width": 200, "height": 100, "maximized": false}).to_string(),
    )
    .unwrap();

    let app = AppUnderTest::launch_in(home, LaunchOptions::default())
        .await
        .unwrap();
    app.find_test_id("composer-input").await.unwrap();

    let (x, y, width, height) = window_rect(&app).await;
    let screen = app
        .client()
        .execute(
            "return [screen.availWidth, screen.availHeight];",
            Vec::new(),
        )
        .await
        .unwrap();
    let screen_width = screen[0].as_u64().unwrap();
    let screen_height = screen[1].as_u64().unwrap();
    assert_eq!(
        (width, height),
        (640, 480),
        "grown to tauri.conf.json's minimum size"
    );
    assert!(
        x + width <= screen_width && y + height <= screen_height,
        "the window {:?} lies on the {screen_width}x{screen_height} screen",
        (x, y, width, height)
    );
    assert_eq!(
        (x, y),
        ((screen_width - width) / 2, (screen_height - height) / 2),
        "centred on the primary monitor"
    );
    app.close().await.unwrap();
}

/// Waits (on a blocking thread, with a deadline) for a process the test started; SIGKILLs it on timeout.
async fn wait_for_exit(child: std::process::Child) -> Output {
    let pid = child.id();
    let waited = tokio::time::timeout(
        SECOND_LAUNCH_DEADLINE,
        tokio::task::spawn_blocking(move || child.wait_with_output()),
    )
    .await;
    match waited {
        Ok(output) => output.unwrap().unwrap(),
        Err(_) => {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(i32::try_from(pid).unwrap()),
                nix::sys::signal::Signal::SIGKILL,
            );
            panic!("the second launch (pid {pid}) did not exit within {SECOND_LAUNCH_DEADLINE:?}");
        }
    }
}

#[tokio::test]
async fn a_second_launch_hands_over_to_the_running_app_and_exits() {
    let bus = SessionBus::start();
    let app = AppUnderTest::launch(LaunchOptions {
        envs: vec![(
            "DBUS_SESSION_BUS_ADDRESS".to_owned(),
            bus.address().to_owned(),
        )],
        args: Vec::new(),
    })
    .await
    .unwrap();
    app.find_test_id("composer-input").await.unwrap();
    let first_pid = app.app_pid().unwrap();
    assert!(
        !logged_text(app.home()).contains("another launch of the app"),
        "nothing handed over yet"
    );

    let second = app.spawn_second_launch().unwrap();
    let second_pid = second.id();
    let output = wait_for_exit(second).await;

    assert!(
        output.status.success(),
        "the second launch exits cleanly: {:?}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    // The second launch exits only after the first accepted the hand-over, so its log line is already there.
    let log = logged_text(app.home());
    assert!(
        log.contains("another launch of the app: focusing the running window"),
        "the running app was asked to come to the front; its log:\n{log}"
    );
    assert_eq!(
        app.app_pid().unwrap(),
        first_pid,
        "the first app still runs"
    );
    assert_ne!(i64::from(second_pid), i64::from(first_pid));
    assert_eq!(app.client().windows().await.unwrap().len(), 1);
    let composer = app.find_test_id("composer-input").await.unwrap();
    assert!(composer.is_displayed().await.unwrap());
    app.close().await.unwrap();
}

#[tokio::test]
async fn without_a_session_bus_the_app_starts_and_logs_that_it_cannot_guard_a_single_instance() {
    let app = AppUnderTest::launch(LaunchOptions {
        envs: vec![(
            "DBUS_SESSION_BUS_ADDRESS".to_owned(),
            "unix:path=/nonexistent/pi-desktop-e2e/bus".to_owned(),
        )],
        args: Vec::new(),
    })
    .await
    .unwrap();

    app.wait_for_text(
        "app-title",
        &format!("Pi Desktop {}", env!("CARGO_PKG_VERSION")),
    )
    .await
    .unwrap();
    let log = logged_text(app.home());
    assert!(
        log.contains("single-instance") && log.contains("launching normally"),
        "the plugin's warning reaches the log file:\n{log}"
    );
    assert!(log.contains("pi desktop started"), "{log}");
    app.close().await.unwrap();
}

#[tokio::test]
async fn after_a_crash_the_next_launch_is_the_single_instance_again() {
    let bus = SessionBus::start();
    let on_bus = || LaunchOptions {
        envs: vec![(
            "DBUS_SESSION_BUS_ADDRESS".to_owned(),
            bus.address().to_owned(),
        )],
        args: Vec::new(),
    };
    let app = AppUnderTest::launch(on_bus()).await.unwrap();
    app.find_test_id("composer-input").await.unwrap();

    // SIGKILL: the app cannot release the name itself; the bus frees it when the connection drops.
    let home = app.kill().await.unwrap();
    let again = AppUnderTest::launch_in(home, on_bus()).await.unwrap();
    again.find_test_id("composer-input").await.unwrap();
    let output = wait_for_exit(again.spawn_second_launch().unwrap()).await;

    assert!(
        output.status.success(),
        "{:?}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let log = logged_text(again.home());
    assert_eq!(
        log.matches("another launch of the app: focusing the running window")
            .count(),
        1,
        "the restarted app owns the name and took the hand-over; its log:\n{log}"
    );
    again.close().await.unwrap();
}
