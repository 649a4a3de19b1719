//! The recorder: what the host's agent subscriber calls to save one conversation as it happens.
//!
//! Messages are anything that serialises to pi's message JSON: the host passes `pi_agent::AgentMessage`s from
//! the events as they are; a partial is serialised only when a checkpoint is actually due, so a long stream
//! costs one serialisation per second, not one per delta. A checkpoint rewrites the whole partial (its row and
//! its search index), so its cost grows with the message: the next one waits at least
//! [`CHECKPOINT_COST_MULTIPLE`] times as long as the last one took, and checkpoints of a very long answer stay
//! a small share of the host's time instead of taking a core from the window.
//!
//! Event mapping ([`ConversationRecorder::on_agent_event`] does it, or the host's subscriber by hand): `message_update` of the assistant message →
//! [`ConversationRecorder::on_message_update`] with the partial message; `message_end` of any message →
//! [`ConversationRecorder::on_message_end`]; the user pressed Stop or the run failed →
//! [`ConversationRecorder::checkpoint_now`] with the latest partial, before the final `message_end` arrives.
//!
//! Failures never lose order: a message whose save failed stays queued in the recorder and is written, in order,
//! before the next one; every call reports the failure so the host can show it, while the Agent keeps the
//! conversation in memory.

use std::collections::VecDeque;
use std::time::Instant;

use pi_agent::AgentEvent;
use serde::Serialize;
use serde_json::Value;

use super::conversation_id::ConversationId;
use super::error::StoreError;
use super::message_text::role_of;
use super::store_handle::Store;

/// The least time between two checkpoints of one streaming message.
pub const CHECKPOINT_INTERVAL_MS: i64 = 1_000;

/// After a checkpoint that took `t`, the next one of the same message waits at least this many times `t` (and
/// never less than [`CHECKPOINT_INTERVAL_MS`]): checkpoints take at most about a tenth of the host's time.
pub const CHECKPOINT_COST_MULTIPLE: i64 = 10;

/// What [`ConversationRecorder::on_message_update`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckpointWrite {
    /// The partial message was saved.
    Written,
    /// The last checkpoint was too recent (see [`CHECKPOINT_INTERVAL_MS`]); nothing was written.
    Throttled,
}

/// Saves one conversation's messages as the Agent produces them. Not shared: one recorder per conversation, fed
/// in event order by the host's subscriber.
#[derive(Debug)]
pub struct ConversationRecorder {
    store: Store,
    conversation_id: ConversationId,
    /// The message streaming now, once its first update arrived.
    streaming: Option<StreamingCheckpoint>,
    /// Saves that failed, oldest first; retried before anything new is written.
    unsaved: VecDeque<PendingWrite>,
}

#[derive(Debug, Clone, Copy)]
struct StreamingCheckpoint {
    /// Its checkpoint row, once one was written.
    seq: Option<i64>,
    /// When a checkpoint was last attempted; failed attempts are throttled too, so a full disk is not asked
    /// again on every delta.
    attempted_at: i64,
    /// How long after `attempted_at` the next checkpoint is due.
    wait_ms: i64,
}

impl StreamingCheckpoint {
    fn due(&self, now: i64) -> bool {
        now - self.attempted_at >= self.wait_ms
    }
}

/// The wait before the next checkpoint, after one whose work took `cost_ms`.
fn checkpoint_wait_ms(cost_ms: i64) -> i64 {
    CHECKPOINT_INTERVAL_MS.max(cost_ms.saturating_mul(CHECKPOINT_COST_MULTIPLE))
}

#[derive(Debug)]
enum PendingWrite {
    /// A finished message to add at the end.
    Append(Value),
    /// A finished message that completes the checkpoint row `seq`.
    Finish { seq: i64, message: Value },
}

impl ConversationRecorder {
    /// A recorder appending to `conversation_id` (which must exist in `store`).
    pub fn new(store: Store, conversation_id: ConversationId) -> Self {
        Self {
            store,
            conversation_id,
            streaming: None,
            unsaved: VecDeque::new(),
        }
    }

    /// The conversation being recorded.
    pub fn conversation_id(&self) -> &ConversationId {
        &self.conversation_id
    }

    /// The store it saves to.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// How many finished messages are waiting to be saved after a failure.
    pub fn n_unsaved(&self) -> usize {
        self.unsaved.len()
    }

    /// Feeds one agent event: `message_update` of an assistant message → [`Self::on_message_update`],
    /// `message_end` → [`Self::on_message_end`]; every other event is ignored. Returns what was written for an
    /// update, `None` for anything else.
    pub fn on_agent_event(
        &mut self,
        event: &AgentEvent,
    ) -> Result<Option<CheckpointWrite>, StoreError> {
        match event {
            AgentEvent::MessageUpdate { message, .. } if message.role() == "assistant" => {
                self.on_message_update(message).map(Some)
            }
            AgentEvent::MessageEnd { message } => self.on_message_end(message).map(|()| None),
            AgentEvent::AgentStart
            | AgentEvent::AgentEnd { .. }
            | AgentEvent::TurnStart
            | AgentEvent::TurnEnd { .. }
            | AgentEvent::MessageStart { .. }
            | AgentEvent::MessageUpdate { .. }
            | AgentEvent::ToolExecutionStart { .. }
            | AgentEvent::ToolExecutionUpdate { .. }
            | AgentEvent::ToolExecutionEnd { .. } => Ok(None),
        }
    }

    /// Whether [`Self::on_agent_event`] would write anything for `event`: a `message_end`, or a `message_update`
    /// of the assistant message whose checkpoint is due. Reads the clock only, never the database, so a caller
    /// can decide without blocking whether the event needs a blocking save at all.
    pub fn writes_for(&self, event: &AgentEvent) -> bool {
        match event {
            AgentEvent::MessageUpdate { message, .. } => {
                message.role() == "assistant" && self.checkpoint_due(self.store.now_ms())
            }
            AgentEvent::MessageEnd { .. } => true,
            AgentEvent::AgentStart
            | AgentEvent::AgentEnd { .. }
            | AgentEvent::TurnStart
            | AgentEvent::TurnEnd { .. }
            | AgentEvent::MessageStart { .. }
            | AgentEvent::ToolExecutionStart { .. }
            | AgentEvent::ToolExecutionUpdate { .. }
            | AgentEvent::ToolExecutionEnd { .. } => false,
        }
    }

    fn checkpoint_due(&self, now: i64) -> bool {
        self.streaming.is_none_or(|streaming| streaming.due(now))
    }

    /// A streaming update of the assistant message: saves `partial` if this is the message's first update or its
    /// last checkpoint is long enough ago (at least [`CHECKPOINT_INTERVAL_MS`], more after a slow one);
    /// otherwise does nothing.
    pub fn on_message_update<M: Serialize + ?Sized>(
        &mut self,
        partial: &M,
    ) -> Result<CheckpointWrite, StoreError> {
        let now = self.store.now_ms();
        if !self.checkpoint_due(now) {
            return Ok(CheckpointWrite::Throttled);
        }
        self.write_checkpoint(partial, now)?;
        Ok(CheckpointWrite::Written)
    }

    /// Saves `partial` at once, whatever the throttle says: for Stop and run errors, so the newest text is on disk
    /// even if the app dies before `message_end`.
    pub fn checkpoint_now<M: Serialize + ?Sized>(&mut self, partial: &M) -> Result<(), StoreError> {
        let now = self.store.now_ms();
        self.write_checkpoint(partial, now)
    }

    /// A message ended: saves it (completing its checkpoint, if it had one) after any earlier unsaved ones.
    pub fn on_message_end<M: Serialize + ?Sized>(&mut self, message: &M) -> Result<(), StoreError> {
        let message: Value = serde_json::to_value(message).map_err(StoreError::Serialise)?;
        if role_of(&message).is_none() {
            return Err(StoreError::MessageWithoutRole);
        }
        let write = match self.streaming.take().and_then(|streaming| streaming.seq) {
            Some(seq) => PendingWrite::Finish { seq, message },
            None => PendingWrite::Append(message),
        };
        self.unsaved.push_back(write);
        self.flush_unsaved()
    }

    /// Retries the saves that failed earlier (the host may call this when the disk has room again).
    pub fn flush_unsaved(&mut self) -> Result<(), StoreError> {
        while let Some(write) = self.unsaved.front() {
            let written = match write {
                PendingWrite::Append(message) => self
                    .store
                    .append_message(&self.conversation_id, message)
                    .map(|_| ()),
                PendingWrite::Finish { seq, message } => {
                    match self
                        .store
                        .finish_checkpoint(&self.conversation_id, *seq, message)
                    {
                        // The checkpoint row is gone (never expected): the message still belongs at the end.
                        Err(StoreError::NotACheckpoint { .. }) => self
                            .store
                            .append_message(&self.conversation_id, message)
                            .map(|_| ()),
                        other => other,
                    }
                }
            };
            match written {
                Ok(()) => {
                    self.unsaved.pop_front();
                }
                Err(error @ StoreError::NotFound(_)) => {
                    // The conversation was deleted for good while it was being recorded: nothing can be saved
                    // into it any more, so the queue is dropped instead of failing on every later event.
                    self.unsaved.clear();
                    self.streaming = None;
                    return Err(error);
                }
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }

    fn write_checkpoint<M: Serialize + ?Sized>(
        &mut self,
        partial: &M,
        now: i64,
    ) -> Result<(), StoreError> {
        let known_seq = self.streaming.and_then(|streaming| streaming.seq);
        // Until it succeeds, the attempt is throttled like the last checkpoint was.
        let wait_ms = self
            .streaming
            .map_or(CHECKPOINT_INTERVAL_MS, |streaming| streaming.wait_ms);
        self.streaming = Some(StreamingCheckpoint {
            seq: known_seq,
            attempted_at: now,
            wait_ms,
        });
        // Earlier messages first, or the checkpoint would take their place in the order.
        self.flush_unsaved()?;
        let started = Instant::now();
        let seq = self
            .store
            .write_checkpoint(&self.conversation_id, known_seq, partial)?;
        let cost_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
        self.streaming = Some(StreamingCheckpoint {
            seq: Some(seq),
            attempted_at: now,
            wait_ms: checkpoint_wait_ms(cost_ms),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{CHECKPOINT_INTERVAL_MS, StreamingCheckpoint, checkpoint_wait_ms};

    #[test]
    fn a_slow_checkpoint_spaces_out_the_next_ones() {
        assert_eq!(checkpoint_wait_ms(0), CHECKPOINT_INTERVAL_MS);
        assert_eq!(checkpoint_wait_ms(99), CHECKPOINT_INTERVAL_MS);
        assert_eq!(checkpoint_wait_ms(400), 4_000);
        assert_eq!(checkpoint_wait_ms(i64::MAX), i64::MAX);
        let after_slow = StreamingCheckpoint {
            seq: Some(1),
            attempted_at: 10_000,
            wait_ms: checkpoint_wait_ms(400),
        };
        assert!(!after_slow.due(10_000 + CHECKPOINT_INTERVAL_MS));
        assert!(!after_slow.due(13_999));
        assert!(after_slow.due(14_000));
    }
}
