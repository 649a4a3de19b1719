//! Two figures of the boundary between the host and the window, reported and never asserted, each over `--runs N`
//! fresh launches (default 5):
//!
//! - **Stop → Send**: during an answer the model server holds open, one script in the page installs a
//!   `MutationObserver` and clicks Stop; the figure is `performance.now()` at the first mutation after which Send is
//!   enabled, minus `performance.now()` right before the click (ms, all on the page's clock).
//! - **Delta → DOM**: an answer of `--deltas N` deltas (default 2,000) `w00000 ` … , offered at each rate of
//!   `--rates A,B,…` deltas a second (default 200): delta k is due at k / rate seconds after the first, and every
//!   delta due is handed to the model server as soon as the bench wakes (so a rate above what one timer tick
//!   carries goes out in small batches at the offered average). The bench notes the wall clock when it hands each
//!   delta to the server; an observer in the page notes the wall clock (`performance.timeOrigin +
//!   performance.now()`) at the first mutation callback where each marker is in the answer's text. The figure is
//!   seen minus sent (ms), with how many never showed, the rate the page showed them at, and the median latency of
//!   the first and the last tenth (a lag that grows shows as a last tenth far above the first). The window renders
//!   several deltas per frame, so latencies within a run are expected to step.
//!
//! Run it with `scripts/bench-boundary.sh --runs 5` (it builds the app like `scripts/test-e2e.sh`, or takes
//! `PI_DESKTOP_APP` as it is, and runs this under Xvfb), or by hand: `xvfb-run -a cargo run -p pi-desktop-e2e
//! --features e2e --example boundary_bench -- --runs 5 --rates 100,1000,10000 --deltas 20000 --only stop|latency`.
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
#[path = "../tests/support/bench_report.rs"]
mod bench_report;

use std::time::{Duration, Instant};

use pi_desktop_e2e::AppUnderTest;
use pi_test_support::openai::{
    OpenAiServer, Reply, text_chunks, text_delta, unfinished_text_chunks,
};
use serde_json::Value;

use bench_report::{Stats, load_average, wall_clock_ms};
use model_server::LaunchApp;

/// How often the bench asks the page whether it has recorded what it waits for.
const POLL: Duration = Duration::from_millis(20);
/// How long the page may take to show Send enabled after Stop.
const STOP_DEADLINE: Duration = Duration::from_secs(30);
/// How long the page may go without showing a new marker once every delta was sent.
const LATENCY_DEADLINE: Duration = Duration::from_secs(120);

struct Options {
    runs: usize,
    /// Offered rates, deltas a second.
    rates: Vec<u64>,
    deltas: usize,
    stop: bool,
    latency: bool,
}

fn parse_options() -> Options {
    let mut options = Options {
        runs: 5,
        rates: vec![200],
        deltas: 2_000,
        stop: true,
        latency: true,
    };
    let usage = "use --runs N --rates A,B,... --deltas N --only stop|latency";
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args
            .next()
            .unwrap_or_else(|| panic!("{arg} needs a value; {usage}"));
        let number = || -> u64 {
            value
                .parse()
                .unwrap_or_else(|_| panic!("{arg} needs a number, not {value}"))
        };
        match arg.as_str() {
            "--runs" => options.runs = usize::try_from(number()).unwrap(),
            "--rates" => {
                options.rates = value
                    .split(',')
                    .map(|rate| {
                        rate.trim()
                            .parse()
                            .ok()
                            .filter(|rate| *rate > 0)
                            .unwrap_or_else(|| panic!("--rates takes positive numbers, not {rate}"))
                    })
                    .collect();
            }
            "--deltas" => options.deltas = usize::try_from(number()).unwrap().clamp(1, 99_999),
            "--only" => match value.as_str() {
                "stop" => options.latency = false,
                "latency" => options.stop = false,
                other => panic!("--only takes stop or latency, not {other}"),
            },
            other => panic!("unknown argument {other}; {usage}"),
        }
    }
    options
}

/// Waits until the page shows the composer (the app is up).
async fn wait_until_usable(app: &AppUnderTest) {
    app.find_test_id("composer-input").await.unwrap();
}

/// Polls `script` every [`POLL`] until it returns something other than `null`, or `deadline` passed (then `null`).
async fn poll_until_set(app: &AppUnderTest, script: &str, deadline: Duration) -> Value {
    let started = Instant::now();
    loop {
        let answer = app.client().execute(script, Vec::new()).await.unwrap();
        if !answer.is_null() || started.elapsed() > deadline {
            return answer;
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Installs the observer and clicks Stop, in one script: the click time is taken right before `click()`, and the
/// observer (attributes and children, the whole body) takes the time of the first callback that finds Send enabled.
/// Returns whether Send was already enabled before the click (the figure would mean nothing then).
const STOP_SCRIPT: &str = r#"
const bench = { clicked: null, enabled: null };
window.__stopBench = bench;
const sendEnabled = () => {
  const send = document.querySelector('[data-testid="send-button"]');
  return send !== null && !send.disabled;
};
const enabledBefore = sendEnabled();
const observer = new MutationObserver(() => {
  if (bench.enabled === null && sendEnabled()) {
    bench.enabled = performance.now();
    observer.disconnect();
  }
});
observer.observe(document.body, { attributes: true, childList: true, subtree: true });
const stop = document.querySelector('[data-testid="stop-button"]');
bench.clicked = performance.now();
stop.click();
return enabledBefore;
"#;

const STOP_RESULT_SCRIPT: &str = r"
const bench = window.__stopBench;
return bench.enabled === null ? null : bench.enabled - bench.clicked;
";

/// One launch: an answer the server holds open, text in the composer, then Stop; returns Stop click → Send enabled.
async fn stop_run() -> f64 {
    let server = OpenAiServer::start(vec![Reply::Hold(unfinished_text_chunks(&[
        "Once upon a time, ",
        "there was a partial answer",
    ]))])
    .await
    .unwrap();
    let app = server.launch_app().await;
    wait_until_usable(&app).await;
    app.send_prompt("Tell me a long story").await.unwrap();
    app.wait_for_xpath(
        r#"//*[@data-testid="message-assistant"][@data-state="streaming"]//*[@data-testid="assistant-text" and contains(., "there was a partial answer")]"#,
    )
    .await
    .unwrap();
    app.wait_for_css(r#"[data-testid="stop-button"]:not([disabled])"#)
        .await
        .unwrap();
    // Send may also depend on the draft: with text in the composer, only the run keeps it disabled.
    app.find_test_id("composer-input")
        .await
        .unwrap()
        .send_keys("And then?")
        .await
        .unwrap();
    let enabled_before = app.client().execute(STOP_SCRIPT, Vec::new()).await.unwrap();
    assert_eq!(
        enabled_before,
        Value::Bool(false),
        "Send was enabled before Stop was clicked"
    );
    let elapsed = poll_until_set(&app, STOP_RESULT_SCRIPT, STOP_DEADLINE).await;
    let elapsed = elapsed
        .as_f64()
        .unwrap_or_else(|| panic!("Send was not enabled within {STOP_DEADLINE:?} of Stop"));
    app.close().await.unwrap();
    elapsed
}

async fn stop_bench(runs: usize) {
    println!("\nStop click -> Send enabled (ms, page clock; each run a fresh app):");
    let mut samples = Vec::new();
    for run in 1..=runs {
        let elapsed = stop_run().await;
        println!("  run {run}: {elapsed:>7.1} ms");
        samples.push(elapsed);
    }
    println!("  all runs: {}", Stats::new(samples).summary());
}

/// The page's side of the latency run: an observer of the whole document (children, text, subtree) that on each
/// callback reads the last answer's text and, scanning forward from where it found the previous marker, stamps
/// every marker newly there with the wall clock. `arguments[0]` is how many deltas the answer has.
const LATENCY_SCRIPT: &str = r#"
const total = arguments[0];
const marker = (k) => "w" + String(k).padStart(5, "0");
const state = { next: 0, from: 0, callbacks: 0 };
window.__deltaSeen = new Array(total).fill(null);
window.__deltaState = state;
const observer = new MutationObserver(() => {
  state.callbacks += 1;
  const texts = document.querySelectorAll('[data-testid="assistant-text"]');
  if (texts.length === 0) return;
  const text = texts[texts.length - 1].textContent || "";
  // Scan on from the last marker found, unless the text no longer holds it there (then from the start).
  if (state.next > 0 && !text.startsWith(marker(state.next - 1), state.from - 6)) state.from = 0;
  const now = performance.timeOrigin + performance.now();
  while (state.next < total) {
    const at = text.indexOf(marker(state.next), state.from);
    if (at < 0) break;
    window.__deltaSeen[state.next] = now;
    state.next += 1;
    state.from = at + 6;
  }
  if (state.next === total) observer.disconnect();
});
observer.observe(document, { childList: true, characterData: true, subtree: true });
"#;

const LATENCY_PROGRESS_SCRIPT: &str =
    "return [window.__deltaState.next, window.__deltaState.callbacks];";

struct LatencyRun {
    latencies: Vec<f64>,
    missing: usize,
    /// Distinct stamps among the seen markers: how many callbacks brought new text.
    updates: usize,
    callbacks: u64,
    /// From the first delta handed to the server to the last.
    send_span: Duration,
    /// Deltas a second the page showed, from its first stamp to its last.
    shown_rate: f64,
    /// Median latency of the first and of the last tenth of the deltas.
    first_tenth: f64,
    last_tenth: f64,
}

/// Waits until the page has seen `deltas` markers, or until no new marker showed for [`LATENCY_DEADLINE`].
async fn wait_for_markers(app: &AppUnderTest, deltas: usize) -> u64 {
    let mut last_progress = Instant::now();
    let mut seen_before = 0;
    loop {
        let progress = app
            .client()
            .execute(LATENCY_PROGRESS_SCRIPT, Vec::new())
            .await
            .unwrap();
        let seen = progress[0].as_u64().unwrap_or(0);
        let callbacks = progress[1].as_u64().unwrap_or(0);
        if seen >= deltas as u64 || last_progress.elapsed() > LATENCY_DEADLINE {
            return callbacks;
        }
        if seen > seen_before {
            seen_before = seen;
            last_progress = Instant::now();
        }
        tokio::time::sleep(POLL).await;
    }
}

async fn latency_run(rate: u64, deltas: usize) -> LatencyRun {
    let server = OpenAiServer::start(vec![Reply::Feed(vec![])])
        .await
        .unwrap();
    let app = server.launch_app().await;
    wait_until_usable(&app).await;
    app.client()
        .execute(LATENCY_SCRIPT, vec![Value::from(deltas)])
        .await
        .unwrap();
    app.send_prompt("Count to two thousand").await.unwrap();
    // Fed chunks queue until the stream opens: start the clock only once the request is in and the stream open.
    let asked = Instant::now();
    while server.requests().is_empty() {
        assert!(
            asked.elapsed() < Duration::from_secs(30),
            "the app never asked the model"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;

    let mut sent = Vec::with_capacity(deltas);
    let first = tokio::time::Instant::now();
    #[allow(
        clippy::cast_precision_loss,
        reason = "delta counts and rates are small"
    )]
    let due = |k: usize| first + Duration::from_secs_f64(k as f64 / rate as f64);
    let mut k = 0;
    while k < deltas {
        tokio::time::sleep_until(due(k)).await;
        let now = tokio::time::Instant::now();
        while k < deltas && due(k) <= now {
            sent.push(wall_clock_ms());
            server.feed(text_delta(&format!("w{k:05} ")));
            k += 1;
        }
    }
    let send_span = first.elapsed();
    let callbacks = wait_for_markers(&app, deltas).await;
    let seen = app
        .client()
        .execute("return window.__deltaSeen;", Vec::new())
        .await
        .unwrap();
    let seen: Vec<Option<f64>> = seen.as_array().unwrap().iter().map(Value::as_f64).collect();
    // Each delta's latency, in delta order (None: never shown).
    let per_delta: Vec<Option<f64>> = seen
        .iter()
        .zip(&sent)
        .map(|(seen, sent)| seen.map(|seen| seen - sent))
        .collect();
    let latencies: Vec<f64> = per_delta.iter().flatten().copied().collect();
    let mut stamps: Vec<f64> = seen.iter().flatten().copied().collect();
    #[allow(clippy::cast_precision_loss, reason = "delta counts are small")]
    let shown_rate = match (stamps.first(), stamps.last()) {
        (Some(first), Some(last)) if last > first => {
            stamps.len() as f64 / ((last - first) / 1000.0)
        }
        _ => f64::NAN,
    };
    stamps.dedup();
    let tenth = (deltas / 10).max(1).min(per_delta.len());
    let median_of =
        |range: &[Option<f64>]| Stats::new(range.iter().flatten().copied().collect()).quantile(0.5);
    let first_tenth = median_of(&per_delta[..tenth]);
    let last_tenth = median_of(&per_delta[per_delta.len() - tenth..]);

    // A fed stream only ends when the client closes it: finish the message, then stop the run.
    server.feed(text_chunks(&[]).pop().unwrap());
    app.client()
        .execute(
            r#"document.querySelector('[data-testid="stop-button"]')?.click();"#,
            Vec::new(),
        )
        .await
        .unwrap();
    let _closed = tokio::time::timeout(Duration::from_secs(10), server.client_closed()).await;
    app.close().await.unwrap();
    LatencyRun {
        missing: deltas - latencies.len(),
        latencies,
        updates: stamps.len(),
        callbacks,
        send_span,
        shown_rate,
        first_tenth,
        last_tenth,
    }
}

async fn latency_bench(runs: usize, rate: u64, deltas: usize) {
    println!(
        "\nDelta -> DOM, {deltas} deltas offered at {rate}/s (ms, wall clock: page's stamp minus feed time):"
    );
    println!(
        "  run  p50_ms  p95_ms  max_ms  missing  updates  callbacks  send_span_ms  shown_per_s  first_10%_p50  last_10%_p50"
    );
    let mut all = Vec::new();
    let mut run_medians = Vec::new();
    for run in 1..=runs {
        let result = latency_run(rate, deltas).await;
        let stats = Stats::new(result.latencies.clone());
        println!(
            "  {run:>3}  {:>6.1}  {:>6.1}  {:>6.1}  {:>7}  {:>7}  {:>9}  {:>12.0}  {:>11.0}  {:>13.1}  {:>12.1}",
            stats.quantile(0.5),
            stats.quantile(0.95),
            stats.max(),
            result.missing,
            result.updates,
            result.callbacks,
            result.send_span.as_secs_f64() * 1000.0,
            result.shown_rate,
            result.first_tenth,
            result.last_tenth
        );
        run_medians.push(stats.quantile(0.5));
        all.extend(result.latencies);
    }
    println!("  all deltas of all runs: {}", Stats::new(all).summary());
    println!(
        "  run medians:            {}",
        Stats::new(run_medians).summary()
    );
}

#[tokio::main]
async fn main() {
    let options = parse_options();
    println!(
        "pi-desktop boundary benchmark: {} runs per figure; cores {}, load {}",
        options.runs,
        std::thread::available_parallelism().map_or(0, usize::from),
        load_average()
    );
    println!(
        "units: milliseconds; quantiles are nearest rank; updates = distinct page stamps (deltas shown together \
         share one), callbacks = observer callbacks"
    );
    if options.stop {
        stop_bench(options.runs).await;
    }
    if options.latency {
        for &rate in &options.rates {
            latency_bench(options.runs, rate, options.deltas).await;
        }
    }
    println!("\nload at the end: {}", load_average());
}
