//! The trace being recorded: the event list, the side logs, and the shared `seq` / `eventIndex` counters
//! (SCENARIOS.md 7.2–7.8).

use std::sync::{Mutex, MutexGuard, PoisonError};

use pi_agent::AgentEvent;
use serde_json::Value;

use super::HarnessError;
use super::trace::{normalize, object, strip_timestamps};

/// Which side log an entry goes to.
#[derive(Debug, Clone, Copy)]
pub enum Log {
    Requests,
    ToolExecutions,
    HookCalls,
    Actions,
    Snapshots,
}

#[derive(Default)]
struct Logs {
    event_count: u64,
    seq: u64,
    events: Vec<Value>,
    requests: Vec<Value>,
    tool_executions: Vec<Value>,
    hook_calls: Vec<Value>,
    actions: Vec<Value>,
    snapshots: Vec<Value>,
}

impl Logs {
    fn log(&mut self, log: Log) -> &mut Vec<Value> {
        match log {
            Log::Requests => &mut self.requests,
            Log::ToolExecutions => &mut self.tool_executions,
            Log::HookCalls => &mut self.hook_calls,
            Log::Actions => &mut self.actions,
            Log::Snapshots => &mut self.snapshots,
        }
    }
}

/// Thread-safe trace recorder.
pub struct Recorder {
    record_events: bool,
    omit_partial_messages: bool,
    logs: Mutex<Logs>,
}

/// The recorded parts of a trace.
pub struct Recorded {
    pub event_count: u64,
    pub events: Vec<Value>,
    pub requests: Vec<Value>,
    pub tool_executions: Vec<Value>,
    pub hook_calls: Vec<Value>,
    pub actions: Vec<Value>,
    pub snapshots: Vec<Value>,
}

impl Recorder {
    pub fn new(record_events: bool, omit_partial_messages: bool) -> Self {
        Self {
            record_events,
            omit_partial_messages,
            logs: Mutex::new(Logs::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Logs> {
        self.logs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts (and, when recording, normalises and stores) one delivered event.
    pub fn record_event(&self, event: &AgentEvent) -> Result<(), HarnessError> {
        let normalized = if self.record_events {
            Some(self.normalize_event(event)?)
        } else {
            None
        };
        let mut logs = self.lock();
        logs.event_count += 1;
        if let Some(normalized) = normalized {
            logs.events.push(normalized);
        }
        Ok(())
    }

    fn normalize_event(&self, event: &AgentEvent) -> Result<Value, HarnessError> {
        match event {
            AgentEvent::MessageUpdate {
                message,
                assistant_message_event,
            } => {
                let mut inner = normalize(&assistant_message_event.without_partial())?;
                strip_timestamps(&mut inner);
                let mut entries = vec![
                    ("type", Value::String("message_update".into())),
                    ("assistantMessageEvent", inner),
                ];
                if !self.omit_partial_messages {
                    entries.push(("message", normalize(message)?));
                }
                Ok(object(entries))
            }
            AgentEvent::AgentStart
            | AgentEvent::AgentEnd { .. }
            | AgentEvent::TurnStart
            | AgentEvent::TurnEnd { .. }
            | AgentEvent::MessageStart { .. }
            | AgentEvent::MessageEnd { .. }
            | AgentEvent::ToolExecutionStart { .. }
            | AgentEvent::ToolExecutionUpdate { .. }
            | AgentEvent::ToolExecutionEnd { .. } => normalize(event),
        }
    }

    /// Events delivered so far.
    pub fn event_count(&self) -> u64 {
        self.lock().event_count
    }

    /// Appends an entry built from the next `seq` and the current `eventIndex`; returns its position.
    pub fn push_with_seq(&self, log: Log, build: impl FnOnce(u64, u64) -> Value) -> usize {
        let mut logs = self.lock();
        let seq = logs.seq;
        logs.seq += 1;
        let event_index = logs.event_count;
        let entry = build(seq, event_index);
        let list = logs.log(log);
        list.push(entry);
        list.len() - 1
    }

    /// Appends an entry that already carries its `seq`.
    pub fn push(&self, log: Log, entry: Value) {
        self.lock().log(log).push(entry);
    }

    /// Edits an entry already logged (tool executions and hook calls are completed after they start).
    pub fn update(
        &self,
        log: Log,
        position: usize,
        edit: impl FnOnce(&mut serde_json::Map<String, Value>, u64),
    ) {
        let mut logs = self.lock();
        let event_index = logs.event_count;
        if let Some(Value::Object(entry)) = logs.log(log).get_mut(position) {
            edit(entry, event_index);
        }
    }

    /// Takes a `seq` number without logging anything.
    pub fn next_seq(&self) -> u64 {
        let mut logs = self.lock();
        logs.seq += 1;
        logs.seq - 1
    }

    pub fn finish(&self) -> Recorded {
        let mut logs = self.lock();
        let logs = std::mem::take(&mut *logs);
        Recorded {
            event_count: logs.event_count,
            events: logs.events,
            requests: logs.requests,
            tool_executions: logs.tool_executions,
            hook_calls: logs.hook_calls,
            actions: logs.actions,
            snapshots: logs.snapshots,
        }
    }
}
