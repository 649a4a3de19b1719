//! The steering and follow-up queues of [`crate::Agent`] (spec 2.7): FIFO, drained in one of two modes.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::agent_message::AgentMessage;

/// How many queued messages one drain delivers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum QueueMode {
    /// Every queued message at once.
    All,
    /// Only the oldest message (the default).
    #[default]
    OneAtATime,
}

/// A FIFO of messages waiting to be injected into a run.
#[derive(Debug, Clone, Default)]
pub(crate) struct MessageQueue {
    messages: VecDeque<AgentMessage>,
    pub(crate) mode: QueueMode,
}

impl MessageQueue {
    pub(crate) fn new(mode: QueueMode) -> Self {
        Self {
            messages: VecDeque::new(),
            mode,
        }
    }

    pub(crate) fn push(&mut self, message: AgentMessage) {
        self.messages.push_back(message);
    }

    /// Removes and returns what the mode delivers (empty when nothing is queued).
    pub(crate) fn drain(&mut self) -> Vec<AgentMessage> {
        match self.mode {
            QueueMode::All => self.messages.drain(..).collect(),
            QueueMode::OneAtATime => self.messages.pop_front().into_iter().collect(),
        }
    }

    pub(crate) fn clear(&mut self) {
        self.messages.clear();
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use pi_ai::UserMessage;

    use super::{MessageQueue, QueueMode};
    use crate::agent_message::AgentMessage;

    fn message(text: &str) -> AgentMessage {
        AgentMessage::User(UserMessage::new(text))
    }

    #[test]
    fn one_at_a_time_delivers_the_oldest_and_all_delivers_everything() {
        // Built once: a message carries the time it was made, so two built apart may differ.
        let [a, b, c] = ["a", "b", "c"].map(message);
        let mut queue = MessageQueue::default();
        queue.push(a.clone());
        queue.push(b.clone());
        queue.push(c.clone());
        assert_eq!(queue.drain(), vec![a]);
        queue.mode = QueueMode::All;
        assert_eq!(queue.drain(), vec![b, c]);
        assert!(queue.drain().is_empty());
    }
}
