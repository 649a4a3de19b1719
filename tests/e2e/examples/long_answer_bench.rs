//! The window's responsiveness while a long structured Markdown answer arrives as fast as loopback allows,
//! reported and never asserted: a one-line script round trip every 100 ms from Send until the window reads idle
//! (median, p95, max), the time from the model server's last byte to idle, and the whole run. Run it with
//! `scripts/bench-long-answer.sh --mb 1 --runs 3` (it builds the app like `scripts/test-e2e.sh` and runs this
//! under Xvfb), or by hand: `xvfb-run -a cargo run -p pi-desktop-e2e --features e2e --example long_answer_bench
//! -- --mb 1 --runs 3`. `--inspector 1` opens the loop inspector before Send, to measure what it costs while
//! the answer streams. `--progress 1` prints, every 10 s while the answer arrives, how many pages of blocks
//! (64 each) the window shows and whether the server has sent its last byte, to see where a long run slows, and
//! at the end the slowest round trips and the longest gaps between the page's animation frames, each with when
//! it happened: a slow round trip without a gap in the page was slow outside the page. `--warm 1` has a short
//! answer arrive and finish first, so the long one meets a window that has already rendered an answer.
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
    unreachable_pub,
    reason = "shared with the tests, which use more of it"
)]
#[path = "../tests/support/long_answer.rs"]
mod long_answer;

use std::time::{Duration, Instant};

use pi_test_support::openai::{Reply, text_chunks};

use long_answer::{ServerApart, markdown_answer, probe_until_idle};
use model_server::LaunchApp;

const DELTA_CHARS: usize = 24;

struct Options {
    megabytes: usize,
    runs: usize,
    inspector: bool,
    progress: bool,
    warm: bool,
}

fn parse_options() -> Options {
    let (mut megabytes, mut runs, mut inspector, mut progress, mut warm) =
        (1, 3, false, false, false);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value: usize = args
            .next()
            .and_then(|value| value.parse().ok())
            .unwrap_or_else(|| panic!("{arg} needs a number"));
        match arg.as_str() {
            "--mb" => megabytes = value,
            "--runs" => runs = value,
            "--inspector" => inspector = value != 0,
            "--progress" => progress = value != 0,
            "--warm" => warm = value != 0,
            other => {
                panic!(
                    "unknown argument {other}; use --mb N --runs N --inspector 0|1 --progress 0|1 --warm 0|1"
                )
            }
        }
    }
    Options {
        megabytes,
        runs,
        inspector,
        progress,
        warm,
    }
}

/// From Send on, the page notes every gap of more than 100 ms between two animation frames: [start, length] in
/// ms after Send.
const FRAME_GAPS_SCRIPT: &str = r#"
window.__frameGaps = [];
const origin = performance.now();
let last = origin;
const frame = (now) => {
  if (now - last > 100) window.__frameGaps.push([Math.round(last - origin), Math.round(now - last)]);
  last = now;
  requestAnimationFrame(frame);
};
requestAnimationFrame(frame);
"#;

/// The `count` longest frame gaps the page noted.
async fn longest_frame_gaps(client: &fantoccini::Client, count: usize) -> String {
    let gaps = client
        .execute("return window.__frameGaps;", vec![])
        .await
        .unwrap();
    let mut gaps: Vec<(u64, u64)> = gaps
        .as_array()
        .map(|gaps| {
            gaps.iter()
                .filter_map(|gap| Some((gap[0].as_u64()?, gap[1].as_u64()?)))
                .collect()
        })
        .unwrap_or_default();
    gaps.sort_by_key(|gap| std::cmp::Reverse(gap.1));
    gaps.iter()
        .take(count)
        .map(|(at, length)| format!("{length} ms at {}.{} s", at / 1000, at % 1000 / 100))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `count` slowest round trips, each with when it started (seconds after Send: probes start every 100 ms,
/// or at once after a slower one).
fn slowest(round_trips: &[Duration], count: usize) -> String {
    let mut started = Duration::ZERO;
    let mut timed: Vec<(Duration, Duration)> = round_trips
        .iter()
        .map(|&round_trip| {
            let at = started;
            started += round_trip.max(long_answer::PROBE_INTERVAL);
            (round_trip, at)
        })
        .collect();
    timed.sort_by_key(|timed| std::cmp::Reverse(timed.0));
    timed
        .iter()
        .take(count)
        .map(|(round_trip, at)| format!("{} ms at {:.1} s", ms(*round_trip), at.as_secs_f64()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every 10 s: seconds since Send, the answer's pages in the window, and whether the last byte is out.
const PROGRESS_SCRIPT: &str =
    r#"return document.querySelectorAll('[data-testid="assistant-text"] .md-page').length;"#;

async fn report_progress(client: &fantoccini::Client, server_done: impl Fn() -> bool) {
    let started = Instant::now();
    let mut ticks = tokio::time::interval(Duration::from_secs(10));
    ticks.tick().await;
    loop {
        ticks.tick().await;
        let sent = Instant::now();
        let pages = client.execute(PROGRESS_SCRIPT, vec![]).await;
        println!(
            "  progress: {:>5.0} s  pages {}  last byte sent {}  (script {} ms)",
            started.elapsed().as_secs_f64(),
            pages.map_or_else(|error| error.to_string(), |pages| pages.to_string()),
            server_done(),
            ms(sent.elapsed())
        );
    }
}

fn ms(duration: Duration) -> String {
    format!("{:.0}", duration.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() {
    let Options {
        megabytes,
        runs,
        inspector,
        progress,
        warm,
    } = parse_options();
    let answer = markdown_answer(megabytes * 1_000_000);
    let deltas = answer.deltas(DELTA_CHARS);
    println!(
        "answer: {} characters, {} sections, {} deltas of {DELTA_CHARS} characters; loop inspector {}",
        answer.text.len(),
        answer.sections,
        deltas.len(),
        if inspector { "open" } else { "closed" }
    );
    println!(
        "run  probes  p50_ms  p95_ms  max_ms  last_byte_to_idle_ms  send_to_idle_ms  complete_at_idle"
    );
    for run in 1..=runs {
        let warm_up = Reply::Stream(text_chunks(&["A **short** answer first."]));
        let long = Reply::Stream(text_chunks(&deltas));
        let replies = if warm {
            vec![warm_up, long]
        } else {
            vec![long]
        };
        let server = ServerApart::start(replies).await;
        let app = server.launch_app().await;
        if inspector {
            app.find_test_id("inspector-toggle")
                .await
                .unwrap()
                .click()
                .await
                .unwrap();
            app.find_test_id("inspector-panel").await.unwrap();
        }
        if warm {
            app.send_prompt("Say something short").await.unwrap();
            app.wait_for_xpath("//*[@data-testid='assistant-text']//strong[text()='short']")
                .await
                .unwrap();
            app.wait_for_css(r#"[data-testid="run-status"][data-state="idle"]"#)
                .await
                .unwrap();
        }
        if progress {
            app.client()
                .execute(FRAME_GAPS_SCRIPT, vec![])
                .await
                .unwrap();
        }
        app.send_prompt("Write a very long structured document")
            .await
            .unwrap();
        let last_heading = answer.last_heading();
        let probing = probe_until_idle(&app, &last_heading, Duration::from_secs(60 * 30));
        let seen = if progress {
            tokio::select! {
                seen = probing => seen,
                () = report_progress(app.client(), || server.last_byte_at().is_some()) => unreachable!(),
            }
        } else {
            probing.await
        };
        let idle_seen = Instant::now();
        let last_byte = server.last_byte_at().unwrap();
        println!(
            "{run:>3}  {:>6}  {:>6}  {:>6}  {:>6}  {:>20}  {:>15}  {}",
            seen.round_trips.len(),
            ms(seen.quantile(0.5)),
            ms(seen.quantile(0.95)),
            ms(seen.max()),
            ms(idle_seen.saturating_duration_since(last_byte)),
            ms(seen.until_idle),
            seen.complete_at_idle
        );
        if progress {
            println!("  slowest round trips: {}", slowest(&seen.round_trips, 5));
            println!(
                "  longest frame gaps in the page: {}",
                longest_frame_gaps(app.client(), 5).await
            );
        }
        app.close().await.unwrap();
    }
}
