//! Benchmarks of the real app, reported and never asserted: cold start to a usable window, idle memory of
//! every process of the app, and Stop click to Send enabled during a stream and during a running MCP tool (the
//! reference server `tests/mcp` installs). Run it with `scripts/bench-app.sh` (it builds
//! the app like `scripts/test-e2e.sh` and runs this under Xvfb), or by hand:
//! `xvfb-run -a cargo run -p pi-desktop-e2e --features e2e --example app_bench -- --runs 5`. With `--quick-ask`,
//! each cold start also measures the memory once the quick-ask window is open (its shortcut pressed with xdotool).
//! Each cold start is followed by one of an empty Tauri 2 window (`src-tauri/examples/empty_window.rs`, built by
//! the script next to this benchmark, or `PI_DESKTOP_EMPTY_WINDOW`), measured the same way: the floor the app's
//! idle memory is compared with, started without any `WEBKIT_DISABLE_*` variable of this benchmark's environment.
//! When the app runs with such variables (`PI_DESKTOP_SAFE_RENDERING=1`, set by hand for the benchmark, or set
//! by the app itself on a machine without a GPU render node), a second empty window is started with the app's,
//! the floor of the same drawing.
#![allow(clippy::print_stdout, reason = "a benchmark prints its report")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark aborts on the first failed step, like a test"
)]

#[allow(dead_code, reason = "shared with the tests, which use more of it")]
#[path = "../tests/support/model_server.rs"]
mod model_server;

#[allow(
    dead_code,
    reason = "shared with the other benchmarks, which use more of it"
)]
#[path = "../tests/support/app_processes.rs"]
mod app_processes;

#[allow(
    dead_code,
    reason = "shared with the other benchmarks, which use more of it"
)]
#[path = "../tests/support/bench_report.rs"]
mod bench_report;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::Locator;
use pi_desktop_e2e::AppUnderTest;
use pi_test_support::openai::{
    OpenAiServer, Reply, event_stream, text_delta, tool_call_chunks, unfinished_text_chunks,
};
use pi_test_support::{Pacing, ReferenceServer, Response, StreamEnd};
use serde_json::Value;

use app_processes::{
    app_process, rss_pss_kib, uptime_seconds, web_process_environment, with_descendants,
};
use bench_report::{load_average, wall_clock_ms};
use model_server::LaunchApp;

/// Polling interval for readiness checks over WebDriver (fantoccini's default is coarser).
const POLL: Duration = Duration::from_millis(10);
const DEADLINE: Duration = Duration::from_secs(60);

struct Options {
    runs: usize,
    stops: usize,
    settle: Duration,
    /// After the idle figure, open the quick-ask window and measure again.
    quick_ask: bool,
}

fn parse_options() -> Options {
    let mut options = Options {
        runs: 5,
        stops: 5,
        settle: Duration::from_secs(5),
        quick_ask: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--quick-ask" {
            options.quick_ask = true;
            continue;
        }
        let mut value = || -> u64 {
            args.next()
                .and_then(|value| value.parse().ok())
                .unwrap_or_else(|| panic!("{arg} needs a number"))
        };
        match arg.as_str() {
            "--runs" => options.runs = usize::try_from(value()).unwrap(),
            "--stops" => options.stops = usize::try_from(value()).unwrap(),
            "--settle" => options.settle = Duration::from_secs(value()),
            other => panic!(
                "unknown argument {other}; use --runs N --stops N --settle SECONDS --quick-ask"
            ),
        }
    }
    options
}

async fn wait_until_usable(app: &AppUnderTest) {
    app.client()
        .wait()
        .at_most(DEADLINE)
        .every(POLL)
        .for_element(Locator::Css(r#"[data-testid="composer-input"]"#))
        .await
        .unwrap();
    wait_for_send_enabled(app).await;
}

/// The page's own start: when its navigation began (`performance.timeOrigin`, ms since the Unix epoch, which
/// places it against the process's start) and its first contentful paint (ms after that, if WebKit recorded one).
struct PageStart {
    navigation_epoch_ms: f64,
    first_contentful_paint_ms: Option<f64>,
}

async fn page_start(app: &AppUnderTest) -> PageStart {
    let value = app
        .client()
        .execute(
            "const paint = performance.getEntriesByType('paint')\
               .find((entry) => entry.name === 'first-contentful-paint');\
             return [performance.timeOrigin, paint === undefined ? null : paint.startTime];",
            Vec::new(),
        )
        .await
        .unwrap();
    PageStart {
        navigation_epoch_ms: value[0].as_f64().unwrap(),
        first_contentful_paint_ms: value[1].as_f64(),
    }
}

/// Polls every [`POLL`] until Send is enabled.
async fn wait_for_send_enabled(app: &AppUnderTest) {
    app.client()
        .wait()
        .at_most(DEADLINE)
        .every(POLL)
        .for_element(Locator::Css(
            r#"[data-testid="send-button"]:not([disabled])"#,
        ))
        .await
        .unwrap();
}

#[derive(Default)]
struct Samples(BTreeMap<String, Vec<f64>>);

impl Samples {
    fn add(&mut self, name: &str, value: f64) {
        self.0.entry(name.to_owned()).or_default().push(value);
    }

    /// The median of the samples named `name`: the middle one, or the mean of the two middle ones.
    fn median(&self, name: &str) -> Option<f64> {
        let mut sorted = self.0.get(name)?.clone();
        sorted.sort_by(f64::total_cmp);
        Some(if sorted.len() % 2 == 1 {
            sorted[sorted.len() / 2]
        } else {
            f64::midpoint(sorted[sorted.len() / 2 - 1], sorted[sorted.len() / 2])
        })
    }

    fn print(&self, unit: &str) {
        for (name, values) in &self.0 {
            let mut sorted = values.clone();
            sorted.sort_by(f64::total_cmp);
            let median = self.median(name).unwrap_or(f64::NAN);
            println!(
                "  {name:<44} median {median:>8.1} {unit}  (min {:.1}, max {:.1}, n={})",
                sorted[0],
                sorted[sorted.len() - 1],
                sorted.len()
            );
        }
    }
}

/// The memory of `root` and its descendants now, in total and by kind of process, names prefixed by `prefix`.
fn add_memory(memory: &mut Samples, prefix: &str, root: u32) {
    let mut total = (0, 0);
    let mut by_kind: BTreeMap<String, (u64, u64, usize)> = BTreeMap::new();
    for member in with_descendants(root) {
        let (rss, pss) = rss_pss_kib(member.pid);
        total = (total.0 + rss, total.1 + pss);
        let entry = by_kind.entry(member.kind).or_default();
        *entry = (entry.0 + rss, entry.1 + pss, entry.2 + 1);
    }
    let mib = |kib: u64| kib as f64 / 1024.0;
    memory.add(&format!("{prefix}all app processes: RSS"), mib(total.0));
    memory.add(&format!("{prefix}all app processes: PSS"), mib(total.1));
    for (kind, (rss, pss, count)) in by_kind {
        memory.add(&format!("{prefix}{kind} (x{count}): RSS"), mib(rss));
        memory.add(&format!("{prefix}{kind} (x{count}): PSS"), mib(pss));
    }
}

/// The empty window as Tauri draws it.
const EMPTY: &str = "empty Tauri window";
/// The empty window started with the `WEBKIT_DISABLE_*` variables the app started with (measured only when there
/// are).
const EMPTY_LIKE_APP: &str = "empty Tauri window drawn like the app";

/// The empty window's binary: `PI_DESKTOP_EMPTY_WINDOW`, or `empty_window` next to this benchmark (both are
/// examples of the same workspace, built into the same directory).
fn empty_window_binary() -> PathBuf {
    std::env::var_os("PI_DESKTOP_EMPTY_WINDOW").map_or_else(
        || {
            std::env::current_exe()
                .unwrap()
                .with_file_name("empty_window")
        },
        PathBuf::from,
    )
}

/// The `WEBKIT_DISABLE_*` variables the app at `app_pid` started WebKit with, as its web process inherited them.
fn webkit_variables(app_pid: u32) -> Vec<(String, String)> {
    web_process_environment(app_pid)
        .into_iter()
        .filter_map(|entry| {
            let (name, value) = entry.split_once('=')?;
            name.starts_with("WEBKIT_DISABLE_")
                .then(|| (name.to_owned(), value.to_owned()))
        })
        .collect()
}

/// One start of the empty Tauri window in a fresh home, with the `WEBKIT_DISABLE_*` variables of this process
/// replaced by `webkit`: spawn → its page loaded, and its memory (with its WebKit processes) once settled, like
/// the app's. `label` names it in the figures.
async fn empty_window_floor(
    options: &Options,
    label: &str,
    webkit: &[(String, String)],
    times: &mut Samples,
    memory: &mut Samples,
) {
    let home = tempfile::tempdir().unwrap();
    let mut command = Command::new(empty_window_binary());
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("WEBKIT_DISABLE_") {
            command.env_remove(name);
        }
    }
    command
        .env("HOME", home.path())
        .envs(webkit.iter().map(|(name, value)| (name, value)))
        .stdout(Stdio::piped());
    let spawned = Instant::now();
    let mut child = command
        .spawn()
        .expect("the empty window did not start (build it with scripts/bench-app.sh)");
    let stdout = child.stdout.take().unwrap();
    let loaded = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .any(|line| line == "loaded");
    assert!(loaded, "the empty window ended before its page loaded");
    times.add(
        &format!("7 {label}: spawn -> page loaded"),
        spawned.elapsed().as_secs_f64() * 1000.0,
    );
    tokio::time::sleep(options.settle).await;
    add_memory(memory, &format!("{label}: "), child.id());
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Cold starts (each a fresh driver, session, app and home, with a model configured: usable is the composer
/// there and Send enabled) and the idle memory of each.
async fn cold_starts(options: &Options) -> (Samples, Samples) {
    let mut times = Samples::default();
    let mut memory = Samples::default();
    let server = OpenAiServer::start(Vec::new()).await.unwrap();
    for run in 1..=options.runs {
        let uptime_at_spawn = uptime_seconds();
        let spawned_at_ms = wall_clock_ms();
        let spawned = Instant::now();
        let app = server.launch_app().await;
        let session_returned = spawned.elapsed();
        wait_until_usable(&app).await;
        let usable = spawned.elapsed();
        let timings = app.launch_timings();
        let process = app_process(app.home()).expect("no pi-desktop process with this home");
        let app_spawned_after = process.started_seconds() - uptime_at_spawn;
        let ms = |duration: Duration| duration.as_secs_f64() * 1000.0;
        times.add("1 total: spawn driver -> usable window", ms(usable));
        times.add(
            "2 tauri-driver + WebKitWebDriver listening",
            ms(timings.driver_ready),
        );
        times.add(
            "3 new-session request -> returned",
            ms(timings.session_open),
        );
        times.add(
            "4 session returned -> usable",
            ms(usable - session_returned),
        );
        times.add(
            "5 spawn driver -> app process started (10ms)",
            app_spawned_after * 1000.0,
        );
        times.add(
            "6 app process started -> usable (10ms)",
            ms(usable) - app_spawned_after * 1000.0,
        );
        let page = page_start(&app).await;
        let navigation_after_spawn = page.navigation_epoch_ms - spawned_at_ms;
        times.add(
            "6a app process started -> page navigation (10ms)",
            navigation_after_spawn - app_spawned_after * 1000.0,
        );
        if let Some(painted) = page.first_contentful_paint_ms {
            times.add("6b page navigation -> first contentful paint", painted);
        }
        println!(
            "run {run}: usable after {:.0} ms (driver {:.0} ms, session {:.0} ms)",
            ms(usable),
            ms(timings.driver_ready),
            ms(timings.session_open)
        );

        let webkit = webkit_variables(process.pid);
        if run == 1 {
            println!("the app started WebKit with {webkit:?}");
        }
        tokio::time::sleep(options.settle).await;
        add_memory(&mut memory, "", process.pid);
        if options.quick_ask {
            let main = app.client().window().await.unwrap();
            let quick = app.open_quick_ask(&main).await.unwrap();
            app.client().switch_to_window(quick).await.unwrap();
            app.find_test_id("quick-ask-input").await.unwrap();
            tokio::time::sleep(options.settle).await;
            add_memory(&mut memory, "quick ask open: ", process.pid);
        }
        app.close().await.unwrap();
        empty_window_floor(options, EMPTY, &[], &mut times, &mut memory).await;
        if !webkit.is_empty() {
            empty_window_floor(options, EMPTY_LIKE_APP, &webkit, &mut times, &mut memory).await;
        }
    }
    (times, memory)
}

/// Stamps, in the page, the Stop click, the moment no tool card reads running any more and the moment Send is
/// enabled again (`window.__bench`, `performance.now()`).
const RECORD_STOP_SCRIPT: &str = r#"
window.__bench = { clicked: null, toolSettled: null, enabled: null };
const observer = new MutationObserver(() => {
  if (window.__bench.clicked === null) return;
  if (window.__bench.toolSettled === null
      && document.querySelector('[data-testid="tool-card"][data-state="running"]') === null) {
    window.__bench.toolSettled = performance.now();
  }
  const send = document.querySelector('[data-testid="send-button"]');
  if (send && !send.disabled) {
    window.__bench.enabled = performance.now();
    observer.disconnect();
  }
});
observer.observe(document.body, { subtree: true, childList: true, attributes: true });
document.querySelector('[data-testid="stop-button"]').addEventListener(
  'click', () => { window.__bench.clicked = performance.now(); }, { capture: true, once: true });
"#;

/// One Stop click, measured: armed and clicked by [`StopClick::click`], settled (Send enabled again, seen over
/// WebDriver) by [`StopClick::settle`].
struct StopClick {
    clicked: Instant,
}

/// What a settled Stop click measured: over WebDriver, and the page's own stamps (`RECORD_STOP_SCRIPT`).
struct SettledStop {
    seen_ms: f64,
    in_page: Value,
}

impl StopClick {
    /// Waits until Stop is enabled, arms the page's stamps and clicks it.
    async fn click(app: &AppUnderTest) -> StopClick {
        let stop_button = app
            .wait_for_css(r#"[data-testid="stop-button"]:not([disabled])"#)
            .await
            .unwrap();
        app.client()
            .execute(RECORD_STOP_SCRIPT, Vec::new())
            .await
            .unwrap();
        let clicked = Instant::now();
        stop_button.click().await.unwrap();
        StopClick { clicked }
    }

    /// Waits until Send is enabled again and reads the page's stamps.
    async fn settle(self, app: &AppUnderTest) -> SettledStop {
        wait_for_send_enabled(app).await;
        let seen_ms = self.clicked.elapsed().as_secs_f64() * 1000.0;
        let in_page = app
            .client()
            .execute("return window.__bench;", Vec::new())
            .await
            .unwrap();
        SettledStop { seen_ms, in_page }
    }
}

impl SettledStop {
    /// Ms from the click event to the page's stamp `key`.
    fn since_click(&self, key: &str) -> f64 {
        match (&self.in_page["clicked"], &self.in_page[key]) {
            (Value::Number(clicked), Value::Number(at)) => {
                at.as_f64().unwrap() - clicked.as_f64().unwrap()
            }
            other => panic!("the page did not record the stop ({key}): {other:?}"),
        }
    }

    /// Adds the figures every load has: in the page, click → Send enabled; over WebDriver, click → Send seen.
    fn add_to(&self, samples: &mut Samples, name: &str) -> f64 {
        let page_ms = self.since_click("enabled");
        samples.add(
            &format!("{name}: in page, click event -> Send enabled"),
            page_ms,
        );
        samples.add(
            &format!("{name}: over WebDriver, click sent -> Send seen enabled"),
            self.seen_ms,
        );
        page_ms
    }
}

/// What the model does while Stop is clicked.
#[derive(Clone, Copy)]
enum Load {
    /// The stream stays open with nothing more to say.
    HeldStream,
    /// The stream goes on, a delta a millisecond, far longer than the run.
    FastStream,
}

impl Load {
    fn name(self) -> &'static str {
        match self {
            Self::HeldStream => "held-open stream",
            Self::FastStream => "fast stream (a delta a ms)",
        }
    }

    fn reply(self) -> Reply {
        let opening = unfinished_text_chunks(&["Once upon a time, ", "there was a partial answer"]);
        match self {
            Self::HeldStream => Reply::Hold(opening),
            Self::FastStream => {
                let mut chunks = opening;
                // Five minutes of deltas: the run is always stopped long before the end.
                chunks.extend(std::iter::repeat_n(text_delta("and on "), 300_000));
                let pacing = Pacing {
                    write_size: None,
                    delay: Duration::from_millis(1),
                    split_utf8: false,
                };
                Reply::Response(Response::stream(
                    event_stream(&chunks).paced(pacing).ending(StreamEnd::Hold),
                ))
            }
        }
    }
}

/// Stop clicks in one app against a model doing `load`: click → the model's connection closed (seen by the
/// server) and click → Send enabled (in the page).
async fn stops(options: &Options, load: Load, samples: &mut Samples) {
    let server = OpenAiServer::start(vec![load.reply()]).await.unwrap();
    let app = server.launch_app().await;
    wait_until_usable(&app).await;
    let name = load.name();
    for stop in 1..=options.stops {
        app.send_prompt("Tell me a long story").await.unwrap();
        app.wait_for_xpath(&format!(
            r#"(//*[@data-testid="message-assistant"])[{stop}][@data-state="streaming"]//*[@data-testid="assistant-text" and contains(., "there was a partial answer")]"#
        ))
        .await
        .unwrap();
        let click = StopClick::click(&app).await;
        let closed = tokio::time::timeout(DEADLINE, server.nth_client_close(stop))
            .await
            .expect("the app never closed the model's connection after Stop");
        let closed_ms = closed
            .saturating_duration_since(click.clicked)
            .as_secs_f64()
            * 1000.0;
        let settled = click.settle(&app).await;
        let page_ms = settled.add_to(samples, name);
        let seen = settled.seen_ms;
        samples.add(
            &format!("{name}: click sent -> connection closed, seen by the server"),
            closed_ms,
        );
        println!(
            "stop {stop} during a {name}: {page_ms:.1} ms in page, closed after {closed_ms:.1} ms, {seen:.1} ms over WebDriver"
        );
        app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
            .await
            .unwrap();
    }
    app.close().await.unwrap();
}

/// Arguments of the reference server's long-running tool: a minute, in sixty steps (each a progress notice).
const LONG_TOOL_ARGUMENTS: &str = r#"{"duration": 60, "steps": 60}"#;

/// Stop clicks while a tool runs: the model asks for the MCP reference server's long-running operation, the
/// card is allowed once, and Stop is clicked once the card reads running; click → the card no longer running
/// and click → Send enabled (in the page), and whether the model was asked anything after (it must not be).
async fn tool_stops(options: &Options, samples: &mut Samples) {
    let server = OpenAiServer::start(vec![Reply::Stream(tool_call_chunks(
        "call_long",
        "everything__trigger-long-running-operation",
        &[LONG_TOOL_ARGUMENTS],
    ))])
    .await
    .unwrap();
    let home = tempfile::Builder::new()
        .prefix("pi-desktop-bench-home-")
        .tempdir()
        .unwrap();
    ReferenceServer::find()
        .and_then(|reference| reference.write_mcp_json(&home.path().join(".config/pi-desktop")))
        .unwrap_or_else(|error| panic!("{error}"));
    let app = server.launch_app_in(home).await;
    wait_until_usable(&app).await;
    let name = "running tool (an MCP call of a minute)";
    for stop in 1..=options.stops {
        app.send_prompt("Run the long operation").await.unwrap();
        let card = format!(r#"(//*[@data-testid="tool-card"])[{stop}]"#);
        app.wait_for_xpath(&format!(
            r#"{card}[@data-state="awaiting_approval" or @data-state="running"]"#
        ))
        .await
        .unwrap();
        if let Ok(allow) = app.find_test_id("approve-once").await {
            allow.click().await.unwrap();
        }
        app.wait_for_xpath(&format!(r#"{card}[@data-state="running"]"#))
            .await
            .unwrap();
        let requests_before = server.requests().len();
        let settled = StopClick::click(&app).await.settle(&app).await;
        let page_ms = settled.add_to(samples, name);
        let (settled_ms, seen) = (settled.since_click("toolSettled"), settled.seen_ms);
        let card_state = app
            .client()
            .find(Locator::XPath(&card))
            .await
            .unwrap()
            .attr("data-state")
            .await
            .unwrap()
            .unwrap_or_default();
        let asked_after = server.requests().len() - requests_before;
        samples.add(
            &format!("{name}: in page, click event -> the card no longer running"),
            settled_ms,
        );
        println!(
            "stop {stop} during a {name}: card {card_state:?} after {settled_ms:.1} ms, Send after {page_ms:.1} ms in page, {seen:.1} ms over WebDriver; model requests after the click: {asked_after}"
        );
        app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
            .await
            .unwrap();
    }
    app.close().await.unwrap();
}

#[tokio::main]
async fn main() {
    let options = parse_options();
    println!(
        "pi-desktop app benchmark: {} cold starts, {} stops, settle {:?}; cores {}, load {}",
        options.runs,
        options.stops,
        options.settle,
        std::thread::available_parallelism().map_or(0, usize::from),
        load_average()
    );
    let (times, memory) = cold_starts(&options).await;
    let mut stop_times = Samples::default();
    for load in [Load::HeldStream, Load::FastStream] {
        stops(&options, load, &mut stop_times).await;
    }
    tool_stops(&options, &mut stop_times).await;
    println!("\ncold start (ms):");
    times.print("ms");
    println!(
        "\nidle memory {:?} after the window is usable (MiB):",
        options.settle
    );
    memory.print("MiB");
    let pss = |prefix: &str| memory.median(&format!("{prefix}all app processes: PSS"));
    for label in [EMPTY, EMPTY_LIKE_APP] {
        if let (Some(app), Some(floor)) = (pss(""), pss(&format!("{label}: "))) {
            println!(
                "  idle PSS, the app over the {label}: {:.2}x ({app:.1} / {floor:.1} MiB, medians)",
                app / floor
            );
        }
    }
    println!("\nStop -> Send enabled (ms):");
    stop_times.print("ms");
    println!("\nload at the end: {}", load_average());
}
