//! A day without a restart, reported and never asserted: `--runs N` (default 500) questions typed into the real
//! window one after the other without restarting the app, each answered by a loopback model that first calls
//! the Downloads listing tool and then answers; every `--switch-every N` runs (default 10) the user starts a
//! new conversation or goes back to the one before it in the sidebar. After the 10th run and then every
//! `--sample-every N` runs (default 50) it reports the PSS of all app processes the moment the run ended and
//! again after a few quiet seconds (and of the web process, where the page's JavaScript heap lives), the page's
//! JavaScript heap (size and capacity, as JavaScriptCore counts them: the app's web process extension gives the
//! page a function for it when `PI_DESKTOP_REPORT_JS_HEAP` is set, as here), how often the web process has
//! emptied WebKit's caches, the page's live IPC callbacks (every Channel and event listener the page registered with Tauri and has
//! not released), and the number of DOM elements. Run it with `scripts/bench-day.sh`.
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

#[path = "../tests/support/page_poll.rs"]
mod page_poll;

use std::time::{Duration, Instant};

use pi_desktop_e2e::{AppUnderTest, LaunchOptions};
use pi_test_support::openai::{OpenAiServer, Reply, text_chunks, tool_call_chunks};
use serde_json::Value;

use app_processes::{app_process, rss_pss_kib, with_descendants};
use bench_report::{load_average, mib};
use model_server::LaunchApp;
use page_poll::poll;

/// How long memory is left to settle before it is read.
const SETTLE: Duration = Duration::from_secs(3);
/// How long one step of a run may take before the benchmark gives up.
const DEADLINE: Duration = Duration::from_secs(60);
/// The run whose figures the later ones are compared with.
const BASELINE_RUN: usize = 10;

/// Set in the app's environment: the page gets `__piDesktopJsHeap()` (see `src-tauri/web-extension/memory.rs`).
const REPORT_JS_HEAP: &str = "PI_DESKTOP_REPORT_JS_HEAP";

/// What the page holds: its JavaScript heap (bytes; null without the extension), how often its web process emptied
/// WebKit's caches (null without the extension), live IPC callbacks and DOM elements.
const PAGE_SCRIPT: &str = r"
const internals = window.__TAURI_INTERNALS__;
const callbacks = internals && internals.callbacks ? internals.callbacks.size : null;
const report = window.__piDesktopJsHeap;
const heap = typeof report === 'function' ? JSON.parse(report()) : null;
const caches = window.__piDesktopCachesEmptied;
return {
  callbacks,
  elements: document.getElementsByTagName('*').length,
  jsHeap: heap ? heap.heapSize : null,
  jsCapacity: heap ? heap.heapCapacity : null,
  cachesEmptied: typeof caches === 'function' ? JSON.parse(caches()) : null,
};
";

struct Options {
    runs: usize,
    switch_every: usize,
    sample_every: usize,
}

fn parse_options() -> Options {
    let mut options = Options {
        runs: 500,
        switch_every: 10,
        sample_every: 50,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value: usize = args
            .next()
            .and_then(|value| value.parse().ok())
            .unwrap_or_else(|| panic!("{arg} needs a number"));
        match arg.as_str() {
            "--runs" => options.runs = value,
            "--switch-every" => options.switch_every = value.max(1),
            "--sample-every" => options.sample_every = value.max(1),
            other => {
                panic!("unknown argument {other}; use --runs N --switch-every N --sample-every N")
            }
        }
    }
    options
}

/// The model's two turns of run `run`: the listing tool, then an answer naming the run.
fn replies(runs: usize) -> Vec<Reply> {
    (1..=runs)
        .flat_map(|run| {
            [
                Reply::Stream(tool_call_chunks(
                    &format!("call_{run}"),
                    "list_download_files",
                    &[r#"{"extensions":["pdf"]}"#],
                )),
                Reply::Stream(text_chunks(&[
                    &format!("Answer {run}: "),
                    "your Downloads hold **invoice-2026.pdf** ",
                    "and `travel-guide.pdf`.",
                ])),
            ]
        })
        .collect()
}

struct Sample {
    run: usize,
    /// All app processes the moment the run ended, before the app's quiet spell.
    busy_pss_kib: u64,
    /// All app processes after [`SETTLE`].
    pss_kib: u64,
    web_pss_kib: u64,
    /// The app's own process (the host), after [`SETTLE`].
    app_pss_kib: u64,
    /// How often the web process had emptied WebKit's caches and how long that took, all told, as `N/ms` (`-`
    /// when the page cannot tell).
    caches_emptied: String,
    callbacks: Value,
    elements: Value,
    /// The JavaScript heap's size and capacity in MiB, as `size/capacity` (`-` when the page cannot tell).
    js_heap: String,
}

async fn sample(app: &AppUnderTest, run: usize) -> Sample {
    let root = app_process(app.home()).expect("no pi-desktop process with this home");
    let pss = |kind: Option<&str>| -> u64 {
        with_descendants(root.pid)
            .iter()
            .filter(|process| kind.is_none_or(|kind| process.kind == kind))
            .map(|process| rss_pss_kib(process.pid).1)
            .sum()
    };
    let busy_pss_kib = pss(None);
    tokio::time::sleep(SETTLE).await;
    let page = app.client().execute(PAGE_SCRIPT, vec![]).await.unwrap();
    let bytes_in_mib = |value: &Value| value.as_f64().map(|bytes| bytes / 1024.0 / 1024.0);
    let js_heap = match (
        bytes_in_mib(&page["jsHeap"]),
        bytes_in_mib(&page["jsCapacity"]),
    ) {
        (Some(size), Some(capacity)) => format!("{size:.1}/{capacity:.1}"),
        _ => "-".to_owned(),
    };
    Sample {
        run,
        busy_pss_kib,
        pss_kib: pss(None),
        web_pss_kib: pss(Some("WebKitWebProcess")),
        app_pss_kib: rss_pss_kib(root.pid).1,
        caches_emptied: match (
            page["cachesEmptied"]["emptied"].as_u64(),
            page["cachesEmptied"]["ms"].as_u64(),
        ) {
            (Some(emptied), Some(ms)) => format!("{emptied}/{ms}"),
            _ => "-".to_owned(),
        },
        callbacks: page["callbacks"].clone(),
        elements: page["elements"].clone(),
        js_heap,
    }
}

/// Every `switch_every` runs: a new conversation, and the next time back to the one before it.
async fn switch_conversation(app: &AppUnderTest, switch: usize) {
    if switch % 2 == 1 {
        app.find_test_id("new-conversation")
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        // The new conversation is shown once no message of the one before is left.
        poll(
            app,
            "return document.querySelector('[data-testid=\"message-user\"]') === null ? true : null;",
            DEADLINE,
        )
        .await;
    } else {
        // Found and clicked in one script: the sidebar re-renders when a run's conversation is saved, and a handle
        // found before that would be stale by the click.
        poll(
            app,
            r#"const open = document.querySelector('[data-testid="conversation-item"]:nth-of-type(2) [data-testid="conversation-open"]');
               if (open === null) return null;
               open.click();
               return true;"#,
            DEADLINE,
        )
        .await;
        app.wait_for_css(r#"[data-testid="message-user"]"#)
            .await
            .unwrap();
    }
}

#[tokio::main]
async fn main() {
    let options = parse_options();
    println!(
        "pi-desktop day benchmark: {} runs (a tool call and an answer each), a conversation switch every {}; cores {}, load {}",
        options.runs,
        options.switch_every,
        std::thread::available_parallelism().map_or(0, usize::from),
        load_average()
    );
    let server = OpenAiServer::start(replies(options.runs)).await.unwrap();
    let home = tempfile::Builder::new()
        .prefix("pi-desktop-bench-home-")
        .tempdir()
        .unwrap();
    let downloads = home.path().join("Downloads");
    std::fs::create_dir_all(&downloads).unwrap();
    for name in ["invoice-2026.pdf", "travel-guide.pdf"] {
        std::fs::write(downloads.join(name), b"%PDF-1.4\n%%EOF\n").unwrap();
    }
    let mut envs = server.app_envs();
    envs.push((REPORT_JS_HEAP.to_owned(), "1".to_owned()));
    let app = AppUnderTest::launch_in(
        home,
        LaunchOptions {
            envs,
            args: Vec::new(),
        },
    )
    .await
    .unwrap();
    app.wait_for_css(r#"[data-testid="send-button"]"#)
        .await
        .unwrap();

    println!(
        "run  busy_pss_mib  pss_mib  web_process_pss_mib  app_process_pss_mib  js_heap_mib  caches_emptied/ms  ipc_callbacks  dom_elements  run_ms  load"
    );
    let mut samples: Vec<Sample> = Vec::new();
    let mut switches = 0;
    let started = Instant::now();
    for run in 1..=options.runs {
        if run > 1 && (run - 1) % options.switch_every == 0 {
            switches += 1;
            switch_conversation(&app, switches).await;
        }
        let asked = Instant::now();
        app.send_prompt(&format!("Which PDFs are in my Downloads? ({run})"))
            .await
            .unwrap();
        app.wait_for_xpath(&format!(
            r#"//*[@data-testid="assistant-text" and contains(., "Answer {run}:") and contains(., "travel-guide.pdf")]"#
        ))
        .await
        .unwrap();
        app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
            .await
            .unwrap();
        app.wait_for_css(r#"[data-testid="send-button"]:not([disabled])"#)
            .await
            .unwrap();
        let run_ms = asked.elapsed().as_secs_f64() * 1000.0;
        if run == BASELINE_RUN || run % options.sample_every == 0 || run == options.runs {
            let taken = sample(&app, run).await;
            println!(
                "{run:>3}  {:>12.1}  {:>7.1}  {:>19.1}  {:>19.1}  {:>11}  {:>17}  {:>13}  {:>12}  {run_ms:>6.0}  {}",
                mib(taken.busy_pss_kib),
                mib(taken.pss_kib),
                mib(taken.web_pss_kib),
                mib(taken.app_pss_kib),
                taken.js_heap,
                taken.caches_emptied,
                taken.callbacks,
                taken.elements,
                load_average()
            );
            samples.push(taken);
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let requests = server.requests().len();
    println!(
        "{} runs in {elapsed:.0} s, {requests} model requests, {switches} conversation switches",
        options.runs
    );
    if let (Some(first), Some(last)) = (
        samples.iter().find(|taken| taken.run == BASELINE_RUN),
        samples.last(),
    ) {
        #[allow(
            clippy::cast_precision_loss,
            reason = "memory in KiB fits an f64 exactly"
        )]
        let ratio = |after: u64, before: u64| after as f64 / before as f64;
        println!(
            "after run {} against after run {}: PSS {:.2}x ({:.1} / {:.1} MiB; the moment the run ended {:.2}x, {:.1} / {:.1} MiB), web process {:.2}x, app process {:.2}x ({:.1} / {:.1} MiB), JavaScript heap {} -> {} MiB, caches emptied/ms {}, IPC callbacks {} -> {}, DOM elements {} -> {}",
            last.run,
            first.run,
            ratio(last.pss_kib, first.pss_kib),
            mib(last.pss_kib),
            mib(first.pss_kib),
            ratio(last.busy_pss_kib, first.busy_pss_kib),
            mib(last.busy_pss_kib),
            mib(first.busy_pss_kib),
            ratio(last.web_pss_kib, first.web_pss_kib),
            ratio(last.app_pss_kib, first.app_pss_kib),
            mib(last.app_pss_kib),
            mib(first.app_pss_kib),
            first.js_heap,
            last.js_heap,
            last.caches_emptied,
            first.callbacks,
            last.callbacks,
            first.elements,
            last.elements
        );
    }
    println!("load at the end: {}", load_average());
    app.close().await.unwrap();
}
