//! [`LiveStream`]: every envelope of every open conversation, fanned out to the windows that subscribed, and
//! what a window needs to join in the middle of a run.
//!
//! Each session's forwarder delivers into its conversation's [`ConversationSink`], which stamps the conversation
//! id on the envelope, folds it into that conversation's [`RunSnapshot`] and hands it to every subscriber, all
//! under one lock. [`LiveStream::subscribe`] takes the same lock, so a new subscriber gets a snapshot that ends
//! exactly where its live envelopes begin: nothing lost, nothing twice.
//!
//! The same fold keeps each conversation's queued steering and follow-up messages ([`QueueSnapshot`], from the
//! queue notices), with or without a run, so a reloaded window shows them again; they go when the conversation's
//! session closes (its sink is dropped).
//!
//! Contracts: a subscriber's `deliver` is called under the lock and must not block; one whose receiver is gone
//! is dropped; subscribing again with the same key (a reloaded window) replaces the old subscription.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use pi_agent::{AgentEvent, AgentMessage, AgentToolResult};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crate::session::{QueuedMessage, QueuedStatus};
use crate::store::ConversationId;
use crate::wire::{Envelope, EnvelopePayload, EnvelopeSink, HostNotice, RunId, SinkClosed};

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

/// A conversation's queued steering and follow-up messages as of envelope `last_seq`.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct QueueSnapshot {
    /// The conversation.
    pub conversation_id: ConversationId,
    /// The last envelope folded in; the subscriber's live envelopes of this conversation continue after it.
    pub last_seq: u64,
    /// Waiting and held messages, in the order queued.
    pub messages: Vec<QueuedMessage>,
}

/// The answer to a subscription: every conversation with a run in progress, and every one with queued messages.
#[derive(Clone, Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LiveSnapshot {
    /// The runs in progress, one per conversation.
    pub runs: Vec<RunSnapshot>,
    /// The conversations with queued messages; absent when there are none (a field added to protocol 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub queues: Option<Vec<QueueSnapshot>>,
}

/// The fan-out of every open conversation's envelopes. Cheap to share (`Arc`).
#[derive(Default)]
pub struct LiveStream {
    state: Mutex<LiveState>,
}

#[derive(Default)]
struct LiveState {
    runs: HashMap<ConversationId, RunSnapshot>,
    /// Each conversation's queue, with the sink (session) that keeps it.
    queues: HashMap<ConversationId, (u64, QueueSnapshot)>,
    subscribers: Vec<(String, Arc<dyn EnvelopeSink>)>,
    next_sink: u64,
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
        let mut queues: Vec<QueueSnapshot> = state
            .queues
            .values()
            .map(|(_, queue)| queue.clone())
            .collect();
        queues.sort_by(|left, right| left.conversation_id.cmp(&right.conversation_id));
        LiveSnapshot {
            runs,
            queues: (!queues.is_empty()).then_some(queues),
        }
    }

    /// The sink a conversation's session delivers into.
    pub fn sink_for(self: &Arc<Self>, conversation_id: ConversationId) -> Arc<dyn EnvelopeSink> {
        let sink_id = {
            let mut state = self.lock();
            state.next_sink += 1;
            state.next_sink
        };
        Arc::new(ConversationSink {
            stream: Arc::clone(self),
            conversation_id,
            sink_id,
        })
    }

    fn lock(&self) -> MutexGuard<'_, LiveState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One conversation's entry into the [`LiveStream`]: one per session.
struct ConversationSink {
    stream: Arc<LiveStream>,
    conversation_id: ConversationId,
    /// Tells this session's queue from a later session's of the same conversation.
    sink_id: u64,
}

impl Drop for ConversationSink {
    /// The session is gone, and its queue with it.
    fn drop(&mut self) {
        let mut state = self.stream.lock();
        if state
            .queues
            .get(&self.conversation_id)
            .is_some_and(|(owner, _)| *owner == self.sink_id)
        {
            state.queues.remove(&self.conversation_id);
        }
    }
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
        self.fold_queue(&mut state, &envelope);
        state
            .subscribers
            .retain(|(_, subscriber)| subscriber.deliver(&envelope).is_ok());
        Ok(())
    }
}

impl ConversationSink {
    /// Folds a queue notice into the conversation's queue (an entry exists only while messages are queued); any
    /// other envelope only moves the entry's `last_seq`.
    fn fold_queue(&self, state: &mut LiveState, envelope: &Envelope) {
        let queue_notice = match &envelope.payload {
            EnvelopePayload::Notice(
                notice @ (HostNotice::MessageQueued { .. }
                | HostNotice::QueuedMessageConsumed { .. }
                | HostNotice::QueuedMessageCancelled { .. }
                | HostNotice::QueuedMessagesHeld { .. }),
            ) => notice,
            EnvelopePayload::Event(_)
            | EnvelopePayload::Notice(
                HostNotice::State { .. }
                | HostNotice::Idle
                | HostNotice::ApprovalRequested(_)
                | HostNotice::ApprovalResolved { .. }
                | HostNotice::TurnRequest(_)
                | HostNotice::ModelRetry(_)
                | HostNotice::Versions { .. }
                | HostNotice::Error { .. },
            ) => {
                if let Some((_, queue)) = state.queues.get_mut(&self.conversation_id) {
                    queue.last_seq = envelope.seq;
                }
                return;
            }
        };
        let empty = || QueueSnapshot {
            conversation_id: self.conversation_id.clone(),
            last_seq: 0,
            messages: Vec::new(),
        };
        let (owner, queue) = state
            .queues
            .entry(self.conversation_id.clone())
            .or_insert_with(|| (self.sink_id, empty()));
        // Another session's queue (an earlier session of this conversation still closing) is not this one's.
        if *owner != self.sink_id {
            *owner = self.sink_id;
            *queue = empty();
        }
        queue.last_seq = envelope.seq;
        queue.apply(queue_notice);
        if queue.messages.is_empty() {
            state.queues.remove(&self.conversation_id);
        }
    }
}

impl QueueSnapshot {
    fn apply(&mut self, notice: &HostNotice) {
        match notice {
            HostNotice::MessageQueued { message } => {
                match self
                    .messages
                    .iter_mut()
                    .find(|queued| queued.id == message.id)
                {
                    Some(queued) => *queued = message.clone(),
                    None => {
                        self.messages.push(message.clone());
                        self.messages.sort_by_key(|queued| queued.id);
                    }
                }
            }
            HostNotice::QueuedMessageConsumed { id }
            | HostNotice::QueuedMessageCancelled { id } => {
                self.messages.retain(|queued| queued.id != *id);
            }
            HostNotice::QueuedMessagesHeld { ids } => {
                for queued in &mut self.messages {
                    if ids.contains(&queued.id) {
                        queued.status = QueuedStatus::Held;
                    }
                }
            }
            HostNotice::State { .. }
            | HostNotice::Idle
            | HostNotice::ApprovalRequested(_)
            | HostNotice::ApprovalResolved { .. }
            | HostNotice::TurnRequest(_)
            | HostNotice::ModelRetry(_)
            | HostNotice::Versions { .. }
            | HostNotice::Error { .. } => {}
        }
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

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::session::{QueueKind, QueuedMessageId};

    /// A subscriber that keeps nothing (the tests read the snapshots).
    struct Nowhere;

    impl EnvelopeSink for Nowhere {
        fn deliver(&self, _envelope: &Envelope) -> Result<(), SinkClosed> {
            Ok(())
        }
    }

    fn queued(id: u64, text: &str) -> QueuedMessage {
        QueuedMessage {
            id: QueuedMessageId(id),
            kind: QueueKind::Steer,
            text: text.to_owned(),
            status: QueuedStatus::Waiting,
        }
    }

    fn notice(seq: u64, notice: HostNotice) -> Envelope {
        Envelope::new(seq, EnvelopePayload::Notice(notice))
    }

    fn queues(stream: &LiveStream) -> serde_json::Value {
        serde_json::to_value(stream.subscribe("window", Arc::new(Nowhere)).queues).unwrap()
    }

    #[test]
    fn the_snapshot_keeps_each_conversations_queue_between_runs_until_its_session_closes() {
        let stream = Arc::new(LiveStream::default());
        let conversation = ConversationId::from("c-1");
        let sink = stream.sink_for(conversation.clone());
        assert_eq!(
            queues(&stream),
            json!(null),
            "absent while nothing is queued"
        );

        for (seq, item) in [
            HostNotice::MessageQueued {
                message: queued(1, "a"),
            },
            HostNotice::MessageQueued {
                message: queued(2, "b"),
            },
            HostNotice::MessageQueued {
                message: queued(3, "c"),
            },
            HostNotice::QueuedMessageConsumed {
                id: QueuedMessageId(1),
            },
            HostNotice::QueuedMessagesHeld {
                ids: vec![QueuedMessageId(2), QueuedMessageId(3)],
            },
            HostNotice::Idle,
            HostNotice::QueuedMessageCancelled {
                id: QueuedMessageId(3),
            },
        ]
        .into_iter()
        .enumerate()
        {
            sink.deliver(&notice(seq as u64 + 1, item)).unwrap();
        }
        assert_eq!(
            queues(&stream),
            json!([{"conversationId": "c-1", "lastSeq": 7,
                    "messages": [{"id": 2, "kind": "steer", "text": "b", "status": "held"}]}])
        );

        // A later session of the same conversation keeps its own queue when the earlier one's sink goes.
        let later = stream.sink_for(conversation);
        later
            .deliver(&notice(
                1,
                HostNotice::MessageQueued {
                    message: queued(1, "new"),
                },
            ))
            .unwrap();
        drop(sink);
        assert_eq!(
            queues(&stream)[0]["messages"],
            json!([{"id": 1, "kind": "steer", "text": "new", "status": "waiting"}])
        );
        drop(later);
        assert_eq!(queues(&stream), json!(null), "gone with its session");
    }
}
