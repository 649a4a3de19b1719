//! [`RecordingSink`]: a conversation's envelopes on their way to the windows, kept as the run's log — in memory
//! while the run goes on (the inspector reads the live run from there), in the store once it settled.
//!
//! Contract: recording never slows a run. On the forwarder's task an envelope costs a clone (events are shared);
//! turning the run into JSON lines, summarising it and writing it happen once, after its `idle`, on a blocking
//! thread — counted before the `idle` goes on to the windows, so a reader that calls [`LiveRunLog::wait_kept`]
//! after seeing `idle` finds the run stored. A log that cannot be written is lost with a warning in the log; the
//! conversation is not.
//!
//! Stored compactly: a `message_update` is already a delta on the wire; `turn_end` keeps no copy of the answer
//! and its tool results, `agent_end` no copy of the run's messages (each is in its own `message_end`).

use std::sync::{Arc, Condvar, Mutex, PoisonError};

use pi_agent::AgentMessage;
use serde_json::Value;

use crate::inspector::{LoggedItem, RunSummary, summarize_runs};
use crate::store::{ConversationId, NewRunLog, Store};
use crate::wire::{Envelope, EnvelopeSink, RunId, SinkClosed};

/// The run being recorded: each envelope and when it passed (ms since the epoch).
#[derive(Default)]
struct RunBuffer {
    started_at: i64,
    messages_before: usize,
    items: Vec<(i64, Envelope)>,
}

/// The live run of one conversation, shared between its sink and the inspector.
#[derive(Default)]
pub struct LiveRunLog {
    current: Mutex<Option<RunBuffer>>,
    /// Finished runs whose logs are being written.
    writing: Mutex<u32>,
    written: Condvar,
}

impl LiveRunLog {
    /// Blocks until every finished run handed to the store so far is kept (or failed). For blocking threads.
    pub fn wait_kept(&self) {
        let mut writing = self.writing.lock().unwrap_or_else(PoisonError::into_inner);
        while *writing > 0 {
            writing = self
                .written
                .wait(writing)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// When the run in progress started, ms since the epoch; `None` between runs.
    pub fn started_at(&self) -> Option<i64> {
        self.lock().as_ref().map(|buffer| buffer.started_at)
    }

    /// The run in progress as the inspector reads it; `None` between runs.
    pub fn summary(&self) -> Option<RunSummary> {
        let lines = {
            let current = self.lock();
            let buffer = current.as_ref()?;
            log_values(&buffer.items)
        };
        summarize(&lines).into_iter().last()
    }

    /// The run in progress as log lines (`{"at": ms, "envelope": …}`) and the number of messages before it.
    pub fn lines(&self) -> Option<(Vec<Value>, usize)> {
        self.lock()
            .as_ref()
            .map(|buffer| (log_values(&buffer.items), buffer.messages_before))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<RunBuffer>> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Hands every envelope to `live` (the windows) and records the runs of `conversation_id` into `store`.
pub struct RecordingSink {
    live: Arc<dyn EnvelopeSink>,
    store: Store,
    conversation_id: ConversationId,
    log: Arc<LiveRunLog>,
}

impl RecordingSink {
    /// A sink in front of `live` recording into `store` and `log`.
    pub fn new(
        live: Arc<dyn EnvelopeSink>,
        store: Store,
        conversation_id: ConversationId,
        log: Arc<LiveRunLog>,
    ) -> RecordingSink {
        RecordingSink {
            live,
            store,
            conversation_id,
            log,
        }
    }

    /// Writes the finished run `buffer` on a blocking thread.
    fn keep(&self, buffer: RunBuffer) {
        let store = self.store.clone();
        let id = self.conversation_id.clone();
        let in_progress = WriteInProgress::start(&self.log);
        let write = move || {
            write_run_log(&store, &id, &buffer);
            drop(in_progress);
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(write)),
            Err(_) => write(),
        }
    }
}

/// Keeps the finished run `buffer` of conversation `id` with its summary.
fn write_run_log(store: &Store, id: &ConversationId, buffer: &RunBuffer) {
    let lines = log_values(&buffer.items);
    let Some(summary) = summarize(&lines).into_iter().last() else {
        return;
    };
    let log = lines
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    let summary = serde_json::to_string(&summary).unwrap_or_default();
    let run = NewRunLog {
        started_at: buffer.started_at,
        messages_before: i64::try_from(buffer.messages_before).unwrap_or(i64::MAX),
        log: &log,
        summary: &summary,
    };
    if let Err(error) = store.append_run_log(id, &run) {
        tracing::warn!(conversation = %id, %error, "the run's log could not be kept");
    }
}

/// Counts one write from its start to its end (a panicking write ends too).
struct WriteInProgress(Arc<LiveRunLog>);

impl WriteInProgress {
    fn start(log: &Arc<LiveRunLog>) -> WriteInProgress {
        *log.writing.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        WriteInProgress(Arc::clone(log))
    }
}

impl Drop for WriteInProgress {
    fn drop(&mut self) {
        let mut writing = self
            .0
            .writing
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *writing = writing.saturating_sub(1);
        self.0.written.notify_all();
    }
}

impl EnvelopeSink for RecordingSink {
    fn run_started(&self, run: RunId, transcript: &[AgentMessage]) {
        *self.log.lock() = Some(RunBuffer {
            started_at: now_ms(),
            messages_before: transcript.len(),
            items: Vec::new(),
        });
        self.live.run_started(run, transcript);
    }

    fn deliver(&self, envelope: &Envelope) -> Result<(), SinkClosed> {
        if envelope.run_id.is_some() {
            let finished = {
                let mut current = self.log.lock();
                if let Some(buffer) = current.as_mut() {
                    buffer.items.push((now_ms(), envelope.clone()));
                }
                if envelope.is_idle() {
                    current.take()
                } else {
                    None
                }
            };
            if let Some(buffer) = finished {
                self.keep(buffer);
            }
        }
        self.live.deliver(envelope)
    }
}

fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

/// The log lines of `items`: `{"at": ms, "envelope": <the wire envelope, compacted>}`.
fn log_values(items: &[(i64, Envelope)]) -> Vec<Value> {
    items
        .iter()
        .filter_map(|(at, envelope)| log_line(*at, envelope))
        .collect()
}

/// One line of a run's log: `envelope` (compacted) and when it passed, `{"at": ms, "envelope": …}`.
pub fn log_line(at_ms: i64, envelope: &Envelope) -> Option<Value> {
    let mut envelope = serde_json::to_value(envelope).ok()?;
    compact(&mut envelope);
    Some(serde_json::json!({"at": at_ms, "envelope": envelope}))
}

/// Drops what every line of a conversation's log would repeat (the protocol version and the conversation's id,
/// given back by [`restore`]) and the copies `turn_end` and `agent_end` carry of messages logged in full by their
/// `message_end`.
fn compact(envelope: &mut Value) {
    if let Some(fields) = envelope.as_object_mut() {
        fields.remove("v");
        fields.remove("conversationId");
    }
    let Some(event) = envelope.get_mut("event").and_then(Value::as_object_mut) else {
        return;
    };
    match event.get("type").and_then(Value::as_str) {
        Some("turn_end") => {
            event.remove("message");
            event.remove("toolResults");
        }
        Some("agent_end") => {
            event.remove("messages");
        }
        _ => {}
    }
}

/// A stored line's envelope as the window received it again: with the protocol version and `conversation_id`.
pub(super) fn restore(line: &mut Value, conversation_id: &ConversationId) {
    if let Some(fields) = line.get_mut("envelope").and_then(Value::as_object_mut) {
        fields.insert("v".to_owned(), Value::from(crate::wire::PROTOCOL_VERSION));
        fields.insert(
            "conversationId".to_owned(),
            Value::from(conversation_id.as_str()),
        );
    }
}

/// The inspector's reading of log `lines`: agent events and host notices, each at its time.
pub(super) fn summarize(lines: &[Value]) -> Vec<RunSummary> {
    let log: Vec<LoggedItem<'_>> = lines.iter().filter_map(logged_item).collect();
    summarize_runs(&log)
}

/// One log line as the inspector reads it.
pub(super) fn logged_item(line: &Value) -> Option<LoggedItem<'_>> {
    let envelope = &line["envelope"];
    let item = match envelope["kind"].as_str()? {
        "event" => &envelope["event"],
        "notice" => &envelope["notice"],
        _ => return None,
    };
    Some(LoggedItem {
        at_ms: line["at"].as_u64(),
        item,
    })
}
