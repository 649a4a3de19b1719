//! Streaming snapshots are cheap (spec 6.2): a consumer that keeps the `partial` of every event of a
//! 200,000-delta answer pays linear time and memory. Pass `--nocapture` to see the numbers.
//!
//! The stream comes from the scripted provider with 1-token (4-character) chunks. The test compares the cost of
//! the first and the last 10% of the deltas: with per-delta copies of the text (O(n) per delta) the last tenth
//! would cost about 19 times the first in time and memory; with shared snapshots both stay flat.

#![allow(clippy::unwrap_used, reason = "test code")]

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use pi_ai::scripted::{ScriptedOptions, ScriptedProvider, text_message};
use pi_ai::{AssistantMessageEvent, Context, SimpleStreamOptions, UserMessage};

const DELTAS: usize = 200_000;
const WINDOW: usize = DELTAS / 10;

/// Resident set size in bytes (Linux), or `None` where `/proc` is unavailable.
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[tokio::test(flavor = "current_thread")]
async fn keeping_every_partial_of_a_200k_delta_answer_costs_linear_time_and_memory() {
    let text: String = "abcd".repeat(DELTAS);
    let provider = ScriptedProvider::with_options(
        ScriptedOptions {
            tokens_per_chunk: 1..=1,
            ..ScriptedOptions::default()
        },
        [text_message(text.clone())],
    );
    let context = Context {
        messages: vec![UserMessage::new("go").into()],
        ..Context::default()
    };
    let mut stream = provider.stream(context, SimpleStreamOptions::default());

    let mut kept: Vec<AssistantMessageEvent> = Vec::with_capacity(DELTAS + 8);
    let mut delta_count = 0;
    let mut window_started = Instant::now();
    let mut window_rss = resident_bytes();
    let mut windows: Vec<(Duration, Option<u64>)> = Vec::new();
    let total_started = Instant::now();
    while let Some(event) = stream.next().await {
        if matches!(event, AssistantMessageEvent::TextDelta { .. }) {
            delta_count += 1;
            if delta_count % WINDOW == 0 {
                let rss = resident_bytes();
                let grown = rss
                    .zip(window_rss)
                    .map(|(now, before)| now.saturating_sub(before));
                windows.push((window_started.elapsed(), grown));
                window_started = Instant::now();
                window_rss = rss;
            }
        }
        kept.push(event);
    }
    let total = total_started.elapsed();
    assert_eq!(delta_count, DELTAS);

    // Every kept snapshot still shows exactly the text as of its own event.
    for idx in [0, 1, DELTAS / 2, DELTAS - 1] {
        let AssistantMessageEvent::TextDelta { partial, .. } = &kept[idx + 2] else {
            panic!("event {idx} is a delta")
        };
        assert_eq!(partial.text().len(), 4 * (idx + 1));
    }
    assert_eq!(stream.result().await.unwrap().text(), text);

    let (first_time, first_rss) = windows[0];
    let (last_time, last_rss) = windows[windows.len() - 1];
    // Robust against a noisy shared machine: the fastest of the last three windows against the slowest of the
    // first three.
    let early_slowest = windows[..3].iter().map(|(time, _)| *time).max().unwrap();
    let late_fastest = windows[windows.len() - 3..]
        .iter()
        .map(|(time, _)| *time)
        .min()
        .unwrap();
    eprintln!(
        "snapshot cost: {DELTAS} deltas kept in {total:?}; first {WINDOW} deltas {first_time:?} (+{} KiB RSS), \
         last {WINDOW} deltas {last_time:?} (+{} KiB RSS); per delta {:.2} µs; final text {} KiB",
        first_rss.unwrap_or(0) / 1024,
        last_rss.unwrap_or(0) / 1024,
        total.as_secs_f64() * 1e6 / DELTAS as f64,
        text.len() / 1024,
    );
    // Quadratic copying would make the last window ~19x the first; allow generous noise for a shared machine.
    assert!(
        late_fastest < early_slowest * 5 + Duration::from_millis(250),
        "time grew: {early_slowest:?} -> {late_fastest:?}"
    );
    if let (Some(first), Some(last)) = (first_rss, last_rss) {
        // With copies, the last window alone would hold 20,000 × ~760 KB ≈ 15 GB.
        assert!(
            last < 64 * 1024 * 1024,
            "memory per window grew to {} MiB",
            last / (1024 * 1024)
        );
        assert!(
            last <= first.max(4 * 1024 * 1024) * 4,
            "memory grew: {first} -> {last}"
        );
    }
}
