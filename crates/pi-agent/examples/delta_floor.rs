//! The least work one streamed text delta costs under the runtime's contract, without the loop around it.
//!
//! ```text
//! delta_floor [DELTAS] [RUNS]     defaults: 2000 deltas, 200 runs after 20 warm-up runs
//! ```
//!
//! Per delta it does only what spec 6.2 and 6.4 require of every `message_update`: grow the live message,
//! hand out an immutable snapshot of it (the content vector of `Arc` blocks, the text as a shared buffer plus
//! a length), wrap the model event in the `Arc<AgentEvent>` listeners receive, and store it as the state's
//! streaming message under the state's lock (what `LiveState::reduce` keeps). No stream, no select, no
//! listener lookup, no harness. It prints the median per delta twice:
//!
//! * `held`: the state still holds the previous snapshot when the next delta arrives, as it does in the
//!   agent (`state().streaming_message` must show the last partial), so the message is copied on write;
//! * `unheld`: nothing holds the previous snapshot, so the message grows in place — a lower bound that the
//!   contract does not allow, shown for scale.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line tool reports on stdout/stderr"
)]

/// The same allocator as the conformance command, so the two can be compared.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use pi_agent::{AgentEvent, AgentMessage};
use pi_ai::{AssistantBlock, AssistantMessage, AssistantMessageEvent, Model};

const WARM_UP_RUNS: usize = 20;

/// Whether the state keeps the previous snapshot while the next delta is built.
#[derive(Clone, Copy)]
enum Holder {
    State,
    Nobody,
}

/// The state's streaming message, as the agent's reducer keeps it: the last `message_update`, shared.
type StreamingEvent = Mutex<Option<Arc<AgentEvent>>>;

/// Streams `chunks` as one text block; returns how many events were delivered.
fn stream(chunks: &[String], holder: Holder, state: &StreamingEvent) -> usize {
    let mut live = Arc::new(AssistantMessage::empty(&Model::unknown()));
    Arc::make_mut(&mut live)
        .content
        .push(Arc::new(AssistantBlock::text("")));
    let mut delivered = 0;
    for chunk in chunks {
        if let Some(AssistantBlock::Text(text)) = Arc::make_mut(&mut live)
            .content
            .first_mut()
            .map(Arc::make_mut)
        {
            text.text.push_str(chunk);
        }
        let event = Arc::new(AgentEvent::MessageUpdate {
            message: AgentMessage::Assistant(Arc::clone(&live)),
            assistant_message_event: AssistantMessageEvent::TextDelta {
                content_index: 0,
                delta: chunk.clone(),
                partial: Arc::clone(&live),
            },
        });
        match holder {
            Holder::State => {
                *state.lock().unwrap_or_else(PoisonError::into_inner) = Some(event);
            }
            Holder::Nobody => drop(std::hint::black_box(event)),
        }
        delivered += 1;
    }
    *state.lock().unwrap_or_else(PoisonError::into_inner) = None;
    delivered
}

/// Median nanoseconds per delta over `runs` timed runs.
fn median_ns_per_delta(chunks: &[String], holder: Holder, runs: usize) -> f64 {
    let state = Mutex::new(None);
    for _ in 0..WARM_UP_RUNS {
        stream(chunks, holder, &state);
    }
    let mut samples: Vec<f64> = (0..runs)
        .map(|_| {
            let started = Instant::now();
            let delivered = stream(chunks, holder, &state);
            started.elapsed().as_secs_f64() * 1e9 / delivered.max(1) as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples.get(samples.len() / 2).copied().unwrap_or(f64::NAN)
}

fn positive(arg: Option<String>, default: usize, what: &str) -> Result<usize, String> {
    match arg {
        None => Ok(default),
        Some(text) => match text.parse::<usize>() {
            Ok(value) if value > 0 => Ok(value),
            _ => Err(format!(
                "{what} must be a positive integer, got {text:?}\nusage: delta_floor [DELTAS] [RUNS]"
            )),
        },
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let parsed = positive(args.next(), 2000, "DELTAS")
        .and_then(|deltas| Ok((deltas, positive(args.next(), 200, "RUNS")?)));
    let (deltas, runs) = match parsed {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let chunks: Vec<String> = (0..deltas).map(|i| format!("tok{i} ")).collect();
    let held = median_ns_per_delta(&chunks, Holder::State, runs);
    let unheld = median_ns_per_delta(&chunks, Holder::Nobody, runs);
    println!(
        "deltas={deltas} runs={runs} held_ns_per_delta={held:.1} unheld_ns_per_delta={unheld:.1}"
    );
    ExitCode::SUCCESS
}
