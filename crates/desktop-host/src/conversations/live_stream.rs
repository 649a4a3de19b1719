//! [`LiveStream`]: every envelope of every open conversation, fanned out to the windows that subscribed, and
//! what a window needs to join in the middle of a run.
//!
//! Each session's forwarder delivers into its conversation's [`ConversationSink`], which stamps the conversation
//! id on the envelope, folds it into that conversation's [`RunSnapshot`] and hands it to every subscriber, all
//! under one lock. [`LiveStream::subscribe`] takes the same lock, so a new subscriber gets a snapshot that ends
//! exactly where its live envelopes begin: nothing lost, nothing twice.
//!
//! Contracts: a subscriber's `deliver` is called under the lock and must not block; one whose receiver is gone
//! is dropped; subscribing again with the same key (a reloaded window) replaces the old subscription.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use pi_agent::{AgentEvent, AgentMessage, AgentToolResult};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crate::store::ConversationId;
use crate::wire::{Envelope, EnvelopePayload, EnvelopeSink, RunId, SinkClosed};

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum RunPhase {
    /// From acceptance to `agent_end`.
    Running,
    /// After `agent_end`, until `idle`.
    Settling,
}

/// A tool call executing now.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RunningTool {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// The call's arguments.
    #[ts(type = "unknown")]
    pub args: Value,
    /// The latest progress it reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    #[ts(type = "import(\"../pi\").AgentToolResult")]
    pub partial_result: Option<AgentToolResult>,
}

/// A run in progress as of envelope `last_seq`: what a window shows when it joins.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RunSnapshot {
    /// The conversation.
    pub conversation_id: ConversationId,
    /// The run.
    pub run_id: RunId,
    /// The last envelope folded in; the subscriber's live envelopes of this conversation continue after it.
    pub last_seq: u64,
    /// Where the run stands.
    pub phase: RunPhase,
    /// Turns started so far.
    pub turn_count: u32,
    /// The conversation's completed messages, in pi's JSON: the transcript before the run and what it added.
    #[ts(type = "Array<import(\"../pi\").AgentMessage>")]
    pub messages: Vec<AgentMessage>,
    /// The assistant message streaming now, as far as it got.
    #[ts(type = "import(\"../pi\").AgentMessage | null")]
    pub streaming: Option<AgentMessage>,
    /// Tool calls executing now, in start order.
    pub tools: Vec<RunningTool>,
}

/// The answer to a subscription: every conversation with a run in progress.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LiveSnapshot {
    /// The runs in progress, one per conversation.
    pub runs: Vec<RunSnapshot>,
}

/// The fan-out of every open conversation's envelopes. Cheap to share (`Arc`).
#[derive(Default)]
pub struct LiveStream {
    state: Mutex<LiveState>,
}

#[derive(Default)]
struct LiveState {
    runs: HashMap<ConversationId, RunSnapshot>,
    subscribers: Vec<(String, Arc<dyn EnvelopeSink>)>,
}

impl LiveStream {
    /// Sends every envelope from now on to `sink`, and returns the runs in progress up to the last envelope
    /// sent before. Replaces an earlier subscription with the same `key`.
    pub fn subscribe(&self, key: &str, sink: Arc<dyn EnvelopeSink>) -> LiveSnapshot {
        let mut state = self.lock();
        state.subscribers.retain(|(existing, _)| existing != key);
        state.subscribers.push((key.to_owned(), sink));
        let mut runs: Vec<RunSnapshot> = state.runs.values().cloned().collect();
        runs.sort_by(|left, right| left.conversation_id.cmp(&right.conversation_id));
        LiveSnapshot { runs }
    }

    /// The sink a conversation's session delivers into.
    pub fn sink_for(self: &Arc<Self>, conversation_id: ConversationId) -> Arc<dyn EnvelopeSink> {
        Arc::new(ConversationSink {
            stream: Arc::clone(self),
            conversation_id,
        })
    }

    fn lock(&self) -> MutexGuard<'_, LiveState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One conversation's entry into the [`LiveStream`].
struct ConversationSink {
    stream: Arc<LiveStream>,
    conversation_id: ConversationId,
}

impl EnvelopeSink for ConversationSink {
    fn run_started(&self, run: RunId, transcript: &[AgentMessage]) {
        let snapshot = RunSnapshot {
            conversation_id: self.conversation_id.clone(),
            run_id: run,
            last_seq: 0,
            phase: RunPhase::Running,
            turn_count: 0,
            messages: transcript.to_vec(),
            streaming: None,
            tools: Vec::new(),
        };
        self.stream
            .lock()
            .runs
            .insert(self.conversation_id.clone(), snapshot);
    }

    fn deliver(&self, envelope: &Envelope) -> Result<(), SinkClosed> {
        let mut envelope = envelope.clone();
        envelope.conversation_id = Some(self.conversation_id.clone());
        let mut state = self.stream.lock();
        if envelope.is_idle() {
            state.runs.remove(&self.conversation_id);
        } else if let Some(run) = state.runs.get_mut(&self.conversation_id) {
            run.fold(&envelope);
        }
        state
            .subscribers
            .retain(|(_, subscriber)| subscriber.deliver(&envelope).is_ok());
        Ok(())
    }
}

impl RunSnapshot {
    fn fold(&mut self, envelope: &Envelope) {
        self.last_seq = envelope.seq;
        let EnvelopePayload::Event(event) = &envelope.payload else {
            return;
        };
        match event.as_ref() {
            AgentEvent::AgentStart => {}
            AgentEvent::AgentEnd { .. } => self.phase = RunPhase::Settling,
            AgentEvent::TurnStart => self.turn_count += 1,
            AgentEvent::TurnEnd { .. } => {}
            AgentEvent::MessageStart { message } | AgentEvent::MessageUpdate { message, .. } => {
                if message.as_assistant().is_some() {
                    self.streaming = Some(message.clone());
                }
            }
            AgentEvent::MessageEnd { message } => {
                self.streaming = None;
                self.messages.push(message.clone());
            }
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => self.tools.push(RunningTool {
                tool_call_id: tool_call_id.clone(),
                tool_name: tool_name.clone(),
                args: args.clone(),
                partial_result: None,
            }),
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                partial_result,
                ..
            } => {
                if let Some(tool) = self
                    .tools
                    .iter_mut()
                    .find(|tool| &tool.tool_call_id == tool_call_id)
                {
                    tool.partial_result = Some(partial_result.clone());
                }
            }
            AgentEvent::ToolExecutionEnd { tool_call_id, .. } => {
                self.tools.retain(|tool| &tool.tool_call_id != tool_call_id);
            }
        }
    }
}
