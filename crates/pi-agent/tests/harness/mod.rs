//! The conformance harness (SCENARIOS.md): runs a scenario file against the Rust `Agent` and records the
//! normalised trace in the oracle's format. Shared by `tests/conformance.rs` and `examples/conformance.rs`.
//!
//! Runs happen on a current-thread Tokio runtime with paused time (spec 6.8): scripted sleeps advance virtual time
//! only when every task is blocked, which makes "quiescent" well defined and the traces deterministic.

#![allow(
    dead_code,
    unused_imports,
    reason = "the test and the example each use part of the harness"
)]
#![allow(
    unreachable_pub,
    reason = "a test-support module; `pub` marks its interface"
)]
#![allow(clippy::print_stdout, reason = "the example prints reports")]

mod loop_hooks;
mod recorder;
mod run;
mod scenario;
mod scripted_model;
mod scripted_tool;
mod trace;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pi_agent::AgentMessage;
use pi_ai::ModelThinkingLevel;
use serde_json::Value;

pub use run::run_scenario;
pub use scenario::{Scenario, load_scenario, parse_scenario};
pub use trace::{canonical_numbers, first_difference, serialize_trace};

/// A malformed scenario or a harness failure (not a trace difference).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarnessError {
    message: String,
}

impl HarnessError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

impl std::fmt::Display for HarnessError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HarnessError {}

/// Parses a thinking level name (`off`, `minimal`, … `max`).
pub fn parse_thinking_level(name: &str) -> Result<ModelThinkingLevel, HarnessError> {
    serde_json::from_value(Value::String(name.to_string()))
        .map_err(|_| HarnessError::new(format!("unknown thinking level {name:?}")))
}

/// Expands a message spec: a full message with a `role` (copied; a missing `timestamp` on a typed message is
/// filled with 0, invisible in traces), or the shorthand `{ "text": "..." }` for a one-block user message.
pub fn expand_message(spec: &Value) -> Result<AgentMessage, HarnessError> {
    let invalid = || HarnessError::new(format!("invalid message spec: {spec}"));
    let Value::Object(map) = spec else {
        return Err(invalid());
    };
    if let Some(role) = map.get("role") {
        let mut map = map.clone();
        let typed = matches!(role.as_str(), Some("user" | "assistant" | "toolResult"));
        if typed && !map.contains_key("timestamp") {
            map.insert("timestamp".into(), Value::from(0));
        }
        return AgentMessage::from_json(Value::Object(map))
            .map_err(|error| HarnessError::new(format!("{}: {error}", invalid())));
    }
    if let Some(Value::String(text)) = map.get("text") {
        let message = serde_json::json!({
            "role": "user",
            "content": [{ "type": "text", "text": text }],
            "timestamp": 0,
        });
        return AgentMessage::from_json(message)
            .map_err(|error| HarnessError::new(error.to_string()));
    }
    Err(invalid())
}

/// Scenario files named by `path`: the file itself, or every `*.json` of a directory, sorted.
pub fn list_scenario_files(path: &Path) -> Result<Vec<PathBuf>, HarnessError> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    let entries = std::fs::read_dir(path)
        .map_err(|error| HarnessError::new(format!("{}: {error}", path.display())))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|file| {
            file.extension()
                .is_some_and(|extension| extension == "json")
        })
        .collect();
    files.sort();
    Ok(files)
}

/// Runs `scenario` on a fresh current-thread runtime with paused time and returns its trace.
pub fn run_blocking(scenario: &Scenario, record_events: bool) -> Result<Value, HarnessError> {
    paused_runtime()?.block_on(run_scenario(scenario, record_events))
}

/// A current-thread runtime with paused (virtual) time, as every scenario run uses.
fn paused_runtime() -> Result<tokio::runtime::Runtime, HarnessError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .map_err(|error| HarnessError::new(format!("cannot build a runtime: {error}")))
}

/// Compares a produced trace with an expected one; `None` when structurally equal (numbers by value).
pub fn compare_traces(expected: &Value, actual: &Value) -> Option<String> {
    let mut expected = expected.clone();
    let mut actual = actual.clone();
    canonical_numbers(&mut expected);
    canonical_numbers(&mut actual);
    first_difference(&expected, &actual)
}

/// Warm-up runs before the timed ones, as the oracle's `bench.mjs` does by default (`--warmup 3`).
pub const BENCH_WARMUP_RUNS: usize = 3;

/// Times `runs` runs of a scenario with event recording off; returns (median, events of the last run).
///
/// The timed region matches `bench.mjs`'s: building the agent, driving the scenario and producing the (unrecorded)
/// trace. The scenario is parsed once beforehand, and each run's fresh runtime is built and dropped outside the
/// timer (node's event loop already exists when its timer starts). `BENCH_WARMUP_RUNS` untimed runs go first.
pub fn bench(scenario: &Scenario, runs: usize) -> Result<(Duration, u64), HarnessError> {
    for _ in 0..BENCH_WARMUP_RUNS {
        run_blocking(scenario, false)?;
    }
    let mut samples = Vec::with_capacity(runs);
    let mut events = 0;
    for _ in 0..runs.max(1) {
        let runtime = paused_runtime()?;
        let started = Instant::now();
        let trace = runtime.block_on(run_scenario(scenario, false))?;
        samples.push(started.elapsed());
        events = trace.get("eventCount").and_then(Value::as_u64).unwrap_or(0);
    }
    samples.sort();
    Ok((samples[samples.len() / 2], events))
}
