//! The session's steering and follow-up messages (pi's `steer` and `followUp`), each with an id, from the moment
//! the user queues one until the loop injects it (`message_start`), the user cancels it, or a stopped run hands it
//! back to the user ("held").
//!
//! Why the host holds the queue instead of pi-agent: pi-agent's queues have no per-message removal, and the loop
//! drains them silently, long before the drained message's `message_start` (after `prepare_next_turn` and
//! `turn_start`). Cancelling one message by clearing the agent's queue and re-adding the others could re-add a
//! message the loop had already drained (it would be sent twice) or call cancelled one that is about to be sent.
//! So the messages live here, and the agent's queues only ever get what the host hands over at the moments right
//! before the loop polls them: before a run starts (the initial steering poll), and in `should_stop_after_turn`,
//! which pi runs after every completed turn immediately before the steering poll and, when the turn called no
//! tools, the follow-up poll (spec 3.2). The agent's own modes are `All`, so each poll takes everything handed
//! over, and the user's modes ([`QueueMode`]) decide how much is handed over. Whatever was handed over is
//! injected by that poll's turn, so a message is cancellable until the turn it goes into begins.
//!
//! Contract: ids grow by one per session, and the messages are kept in id order (the order they were queued).

use std::collections::VecDeque;

use pi_agent::AgentMessage;
use pi_ai::{UserBlock, UserContent, UserMessage};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How many queued messages one poll of the loop delivers (pi's `steeringMode` / `followUpMode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum QueueMode {
    /// The oldest message only; the next one waits for the next poll (pi's default).
    #[default]
    OneAtATime,
    /// Every message queued by then, in one turn.
    All,
}

/// Which of pi's two queues a message is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum QueueKind {
    /// Delivered at the next steering poll: after the current tool batch, or when the answer ends.
    Steer,
    /// Delivered when the agent would otherwise stop.
    FollowUp,
}

/// Where a queued message stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum QueuedStatus {
    /// The loop delivers it at its next poll of its kind.
    Waiting,
    /// A run ended before it was delivered (Stop, or it came too late): it waits for the user to send or discard
    /// it and is never delivered by itself.
    Held,
}

/// A queued message's id, unique within its session (the window names it in `cancel_queued` and `send_queued`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct QueuedMessageId(pub u64);

impl std::fmt::Display for QueuedMessageId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A queued message as the window shows it (a chip above the composer).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct QueuedMessage {
    /// Its id.
    pub id: QueuedMessageId,
    /// Steering or follow-up.
    pub kind: QueueKind,
    /// What the user typed.
    pub text: String,
    /// Waiting for the loop, or held for the user.
    pub status: QueuedStatus,
}

/// Why a queued message could not be cancelled or sent. `Display` is safe to show.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueueError {
    /// No such message: it was delivered, cancelled or sent already (or never queued in this session).
    #[error("queued message {0} is no longer queued: it was delivered, cancelled or sent already")]
    NotQueued(QueuedMessageId),
    /// The loop has taken it for the turn that is starting; it reaches the model in that turn.
    #[error("queued message {0} is already on its way to the model and can no longer be cancelled")]
    AlreadyDelivered(QueuedMessageId),
}

/// What to hand to the agent's queues right before the loop polls them.
#[derive(Debug, Default)]
pub(crate) struct Handover {
    pub(crate) steering: Vec<AgentMessage>,
    pub(crate) follow_ups: Vec<AgentMessage>,
}

/// One session's queue (behind the session's std mutex; every method is short and synchronous).
#[derive(Debug)]
pub(crate) struct MessageQueue {
    next_id: u64,
    /// Waiting and held messages, in id order.
    entries: Vec<Entry>,
    /// Handed to the agent and not yet seen in a `message_start`, in the order the loop injects them.
    in_flight: VecDeque<Entry>,
    steering_mode: QueueMode,
    follow_up_mode: QueueMode,
}

#[derive(Debug, Clone)]
struct Entry {
    id: QueuedMessageId,
    kind: QueueKind,
    text: String,
    /// The message the agent gets: made once, so its `message_start` compares equal (timestamp included).
    message: AgentMessage,
    status: QueuedStatus,
}

impl Entry {
    fn view(&self) -> QueuedMessage {
        QueuedMessage {
            id: self.id,
            kind: self.kind,
            text: self.text.clone(),
            status: self.status,
        }
    }
}

impl MessageQueue {
    pub(crate) fn new(steering_mode: QueueMode, follow_up_mode: QueueMode) -> MessageQueue {
        MessageQueue {
            next_id: 1,
            entries: Vec::new(),
            in_flight: VecDeque::new(),
            steering_mode,
            follow_up_mode,
        }
    }

    /// The modes of the next polls.
    pub(crate) fn set_modes(&mut self, steering_mode: QueueMode, follow_up_mode: QueueMode) {
        self.steering_mode = steering_mode;
        self.follow_up_mode = follow_up_mode;
    }

    /// Queues `text` as a waiting message of `kind`.
    pub(crate) fn push(&mut self, kind: QueueKind, text: String) -> QueuedMessage {
        let entry = Entry {
            id: QueuedMessageId(self.next_id),
            kind,
            message: user_message(text.clone()),
            text,
            status: QueuedStatus::Waiting,
        };
        self.next_id += 1;
        let view = entry.view();
        self.entries.push(entry);
        view
    }

    /// Every queued message, in id order: those handed to the agent and not injected yet, then the rest.
    pub(crate) fn messages(&self) -> Vec<QueuedMessage> {
        let mut messages: Vec<QueuedMessage> = self
            .in_flight
            .iter()
            .chain(&self.entries)
            .map(Entry::view)
            .collect();
        messages.sort_by_key(|message| message.id);
        messages
    }

    /// What the polls after a completed turn deliver: waiting steering messages (as the steering mode says); when
    /// there are none and the turn called no tools (so the loop polls follow-ups next), waiting follow-ups (as the
    /// follow-up mode says). What it returns is in flight until its `message_start`.
    pub(crate) fn hand_over_after_turn(&mut self, turn_called_tools: bool) -> Handover {
        let steering = self.take_waiting(QueueKind::Steer);
        if !steering.is_empty() || turn_called_tools {
            return Handover {
                steering,
                follow_ups: Vec::new(),
            };
        }
        Handover {
            steering: Vec::new(),
            follow_ups: self.take_waiting(QueueKind::FollowUp),
        }
    }

    /// What the initial steering poll of a run delivers (steering queued while idle, as pi does).
    pub(crate) fn hand_over_before_run(&mut self) -> Vec<AgentMessage> {
        self.take_waiting(QueueKind::Steer)
    }

    /// Moves what one poll of `kind` delivers into flight and returns the messages.
    fn take_waiting(&mut self, kind: QueueKind) -> Vec<AgentMessage> {
        let mode = match kind {
            QueueKind::Steer => self.steering_mode,
            QueueKind::FollowUp => self.follow_up_mode,
        };
        let mut taken = Vec::new();
        let mut index = 0;
        while index < self.entries.len() {
            let entry = &self.entries[index];
            if entry.kind == kind && entry.status == QueuedStatus::Waiting {
                let entry = self.entries.remove(index);
                taken.push(entry.message.clone());
                self.in_flight.push_back(entry);
                if mode == QueueMode::OneAtATime {
                    break;
                }
            } else {
                index += 1;
            }
        }
        taken
    }

    /// True while a handed-over message waits for its `message_start`.
    pub(crate) fn has_in_flight(&self) -> bool {
        !self.in_flight.is_empty()
    }

    /// The id of the queued message `message` is, when it is the next one the loop injects (a `message_start`
    /// passed); it leaves the queue.
    pub(crate) fn consume(&mut self, message: &AgentMessage) -> Option<QueuedMessageId> {
        if self.in_flight.front()?.message != *message {
            return None;
        }
        self.in_flight.pop_front().map(|entry| entry.id)
    }

    /// Removes a waiting or held message.
    pub(crate) fn cancel(&mut self, id: QueuedMessageId) -> Result<QueuedMessage, QueueError> {
        if self.in_flight.iter().any(|entry| entry.id == id) {
            return Err(QueueError::AlreadyDelivered(id));
        }
        let index = self
            .entries
            .iter()
            .position(|entry| entry.id == id)
            .ok_or(QueueError::NotQueued(id))?;
        Ok(self.entries.remove(index).view())
    }

    /// Takes a waiting or held message out of the queue to send it as a prompt; returns its text.
    pub(crate) fn take_for_prompt(&mut self, id: QueuedMessageId) -> Result<String, QueueError> {
        self.cancel(id).map(|message| message.text)
    }

    /// Makes a waiting or held message a waiting steering message (it keeps its place).
    pub(crate) fn steer_again(&mut self, id: QueuedMessageId) -> Result<QueuedMessage, QueueError> {
        if self.in_flight.iter().any(|entry| entry.id == id) {
            return Err(QueueError::AlreadyDelivered(id));
        }
        let entry = self
            .entries
            .iter_mut()
            .find(|entry| entry.id == id)
            .ok_or(QueueError::NotQueued(id))?;
        entry.kind = QueueKind::Steer;
        entry.status = QueuedStatus::Waiting;
        Ok(entry.view())
    }

    /// Puts messages handed over to a run that will not inject them back in the queue, waiting (the caller
    /// cleared the agent's queues).
    pub(crate) fn reclaim_in_flight(&mut self) {
        self.entries.extend(self.in_flight.drain(..));
        self.entries.sort_by_key(|entry| entry.id);
    }

    /// After a run: every message still queued (also one handed over and never injected) is held for the user.
    /// Returns the ids that became held, in id order.
    pub(crate) fn hold_remaining(&mut self) -> Vec<QueuedMessageId> {
        self.reclaim_in_flight();
        self.entries
            .iter_mut()
            .filter(|entry| entry.status == QueuedStatus::Waiting)
            .map(|entry| {
                entry.status = QueuedStatus::Held;
                entry.id
            })
            .collect()
    }
}

/// The user message a queued text becomes (pi's shape for a typed prompt: one text block).
fn user_message(text: String) -> AgentMessage {
    AgentMessage::User(UserMessage::new(UserContent::Blocks(vec![
        UserBlock::text(text),
    ])))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn texts(messages: &[AgentMessage]) -> Vec<String> {
        messages
            .iter()
            .map(|message| match message {
                AgentMessage::User(user) => match &user.content {
                    UserContent::Text(text) => text.clone(),
                    UserContent::Blocks(blocks) => blocks
                        .iter()
                        .filter_map(|block| match block {
                            UserBlock::Text(text) => Some(text.text.to_string()),
                            UserBlock::Image(_) => None,
                        })
                        .collect(),
                },
                other => panic!("not a user message: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn one_at_a_time_hands_over_the_oldest_steering_message_per_poll_and_all_hands_over_every_one()
    {
        let mut queue = MessageQueue::new(QueueMode::OneAtATime, QueueMode::OneAtATime);
        queue.push(QueueKind::Steer, "a".to_owned());
        queue.push(QueueKind::FollowUp, "later".to_owned());
        queue.push(QueueKind::Steer, "b".to_owned());
        queue.push(QueueKind::Steer, "c".to_owned());

        let first = queue.hand_over_after_turn(true);
        assert_eq!(texts(&first.steering), vec!["a"]);
        assert!(first.follow_ups.is_empty());
        queue.set_modes(QueueMode::All, QueueMode::OneAtATime);
        let rest = queue.hand_over_after_turn(false);
        assert_eq!(texts(&rest.steering), vec!["b", "c"]);
        assert!(
            rest.follow_ups.is_empty(),
            "no follow-up while steering goes in"
        );
    }

    #[test]
    fn follow_ups_are_handed_over_only_after_a_turn_without_tools_and_without_steering() {
        let mut queue = MessageQueue::new(QueueMode::OneAtATime, QueueMode::OneAtATime);
        queue.push(QueueKind::FollowUp, "one".to_owned());
        queue.push(QueueKind::FollowUp, "two".to_owned());
        let after_tools = queue.hand_over_after_turn(true);
        assert!(after_tools.steering.is_empty() && after_tools.follow_ups.is_empty());
        assert_eq!(
            texts(&queue.hand_over_after_turn(false).follow_ups),
            vec!["one"]
        );
        queue.set_modes(QueueMode::OneAtATime, QueueMode::All);
        queue.push(QueueKind::FollowUp, "three".to_owned());
        assert_eq!(
            texts(&queue.hand_over_after_turn(false).follow_ups),
            vec!["two", "three"]
        );
    }

    #[test]
    fn a_handed_over_message_is_consumed_by_its_own_message_start_and_cannot_be_cancelled_before() {
        let mut queue = MessageQueue::new(QueueMode::OneAtATime, QueueMode::OneAtATime);
        let queued = queue.push(QueueKind::Steer, "look in Documents too".to_owned());
        let handed = queue.hand_over_after_turn(false).steering;
        assert_eq!(
            queue.cancel(queued.id),
            Err(QueueError::AlreadyDelivered(queued.id))
        );
        // Another user message with the same text (made at another time, or the prompt) is not this one.
        let mut other = user_message("look in Documents too".to_owned());
        if let AgentMessage::User(user) = &mut other {
            user.timestamp -= 1;
        }
        assert_eq!(queue.consume(&other), None);
        assert_eq!(queue.consume(&handed[0]), Some(queued.id));
        assert!(!queue.has_in_flight());
        assert_eq!(
            queue.cancel(queued.id),
            Err(QueueError::NotQueued(queued.id))
        );
    }

    #[test]
    fn after_a_run_what_is_left_is_held_and_held_messages_are_never_handed_over() {
        let mut queue = MessageQueue::new(QueueMode::All, QueueMode::All);
        let steer = queue.push(QueueKind::Steer, "s".to_owned());
        let follow_up = queue.push(QueueKind::FollowUp, "f".to_owned());
        let _handed = queue.hand_over_after_turn(true);
        assert_eq!(queue.hold_remaining(), vec![steer.id, follow_up.id]);
        assert_eq!(
            queue
                .messages()
                .iter()
                .map(|message| (message.id, message.status))
                .collect::<Vec<_>>(),
            vec![
                (steer.id, QueuedStatus::Held),
                (follow_up.id, QueuedStatus::Held)
            ]
        );
        assert!(queue.hand_over_before_run().is_empty());
        assert!(queue.hand_over_after_turn(false).follow_ups.is_empty());

        let again = queue.steer_again(follow_up.id).unwrap();
        assert_eq!(
            (again.kind, again.status),
            (QueueKind::Steer, QueuedStatus::Waiting)
        );
        assert_eq!(texts(&queue.hand_over_before_run()), vec!["f"]);
        assert_eq!(queue.take_for_prompt(steer.id), Ok("s".to_owned()));
        assert_eq!(
            queue.take_for_prompt(steer.id),
            Err(QueueError::NotQueued(steer.id))
        );
    }
}
