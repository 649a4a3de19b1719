//! The window's responsiveness while a long structured Markdown answer arrives as fast as loopback allows,
//! reported and never asserted: a one-line script round trip every 100 ms from Send until the window reads idle
//! (median, p95, max), the time from the model server's last byte to idle, and the whole run. Run it with
//! `scripts/bench-long-answer.sh --mb 1 --runs 3` (it builds the app like `scripts/test-e2e.sh` and runs this
//! under Xvfb), or by hand: `xvfb-run -a cargo run -p pi-desktop-e2e --features e2e --example long_answer_bench
//! -- --mb 1 --runs 3`. `--inspector 1` opens the loop inspector before Send, to measure what it costs while
//! the answer streams.
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

use pi_test_support::openai::{OpenAiServer, Reply, text_chunks};

use long_answer::{markdown_answer, probe_until_idle};
use model_server::LaunchApp;

const DELTA_CHARS: usize = 24;

fn parse_options() -> (usize, usize, bool) {
    let (mut megabytes, mut runs, mut inspector) = (1, 3, false);
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
            other => panic!("unknown argument {other}; use --mb N --runs N --inspector 0|1"),
        }
    }
    (megabytes, runs, inspector)
}

fn ms(duration: Duration) -> String {
    format!("{:.0}", duration.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() {
    let (megabytes, runs, inspector) = parse_options();
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
        let server = OpenAiServer::start(vec![Reply::Stream(text_chunks(&deltas))])
            .await
            .unwrap();
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
        app.send_prompt("Write a very long structured document")
            .await
            .unwrap();
        let seen =
            probe_until_idle(&app, &answer.last_heading(), Duration::from_secs(60 * 30)).await;
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
        app.close().await.unwrap();
    }
}
