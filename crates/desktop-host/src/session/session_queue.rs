//! [`SessionQueue`]: a session's [`MessageQueue`] wired to its Agent and to its forwarder. It hands messages to
//! the agent's queues right before the loop polls them, sees each one's `message_start`, and tells the window
//! every change with a host notice on the session's stream.
//!
//! Ordering contract: a change and its notice happen together. Each change first reserves a place on the
//! forwarder's channel, then changes the queue and sends the notice under the queue's lock, so the window sees
//! `message_queued` before the loop can hand that message over, and `queued_message_consumed` only after the
//! injected message's `message_start` (the Agent's listener sends that event before it asks here).

use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use pi_agent::{Agent, AgentMessage, ShouldStopAfterTurnFn, TurnContext, WeakAgent};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::session::message_queue::{
    MessageQueue, QueueError, QueueKind, QueueMode, QueuedMessage, QueuedMessageId,
};
use crate::wire::{ForwardItem, HostNotice};

/// The queue of one session. Shared by the session, its Agent's `should_stop_after_turn` hook and its listener.
pub(crate) struct SessionQueue {
    queue: Mutex<MessageQueue>,
    /// The session's Agent, set once it exists (the hook is part of the options it is built from).
    agent: OnceLock<WeakAgent>,
    forward_tx: mpsc::Sender<ForwardItem>,
}

impl SessionQueue {
    pub(crate) fn new(
        steering_mode: QueueMode,
        follow_up_mode: QueueMode,
        forward_tx: mpsc::Sender<ForwardItem>,
    ) -> Arc<SessionQueue> {
        Arc::new(SessionQueue {
            queue: Mutex::new(MessageQueue::new(steering_mode, follow_up_mode)),
            agent: OnceLock::new(),
            forward_tx,
        })
    }

    /// Binds the Agent the hook hands messages to.
    pub(crate) fn bind(&self, agent: WeakAgent) {
        let _ = self.agent.set(agent);
    }

    /// The Agent's `should_stop_after_turn`: it never stops the run; it hands over what the polls right after it
    /// deliver (nothing once the run is being stopped: Stop returns those messages to the user instead).
    pub(crate) fn should_stop_after_turn(self: &Arc<Self>) -> ShouldStopAfterTurnFn {
        let session_queue = Arc::clone(self);
        Arc::new(move |turn: TurnContext, cancel: CancellationToken| {
            if !cancel.is_cancelled()
                && let Some(agent) = session_queue.agent.get().and_then(WeakAgent::upgrade)
            {
                let handover = session_queue
                    .lock()
                    .hand_over_after_turn(!turn.tool_results.is_empty());
                for message in handover.steering {
                    agent.steer(message);
                }
                for message in handover.follow_ups {
                    agent.follow_up(message);
                }
            }
            Box::pin(std::future::ready(Ok(false)))
        })
    }

    /// Before a run starts: steering messages queued while idle go to the run's initial steering poll (pi's rule).
    pub(crate) fn hand_over_before_run(&self, agent: &Agent) {
        for message in self.lock().hand_over_before_run() {
            agent.steer(message);
        }
    }

    /// After the Agent refused a run it was handed messages for: they wait again.
    pub(crate) fn reclaim(&self, agent: &Agent) {
        agent.clear_all_queues();
        self.lock().reclaim_in_flight();
    }

    /// Sets the modes of the next polls.
    pub(crate) fn set_modes(&self, steering_mode: QueueMode, follow_up_mode: QueueMode) {
        self.lock().set_modes(steering_mode, follow_up_mode);
    }

    /// Every queued message, in the order queued.
    pub(crate) fn messages(&self) -> Vec<QueuedMessage> {
        self.lock().messages()
    }

    /// Queues `text`; the window hears `message_queued`.
    pub(crate) async fn push(&self, kind: QueueKind, text: String) -> QueuedMessage {
        self.change(|queue| {
            let message = queue.push(kind, text);
            let notice = HostNotice::MessageQueued {
                message: message.clone(),
            };
            (message, Some(notice))
        })
        .await
    }

    /// Cancels a waiting or held message; the window hears `queued_message_cancelled`.
    pub(crate) async fn cancel(&self, id: QueuedMessageId) -> Result<(), QueueError> {
        self.change(|queue| match queue.cancel(id) {
            Ok(_) => (Ok(()), Some(HostNotice::QueuedMessageCancelled { id })),
            Err(error) => (Err(error), None),
        })
        .await
    }

    /// Takes a message out to send it as a prompt; the window hears `queued_message_consumed`.
    pub(crate) async fn take_for_prompt(&self, id: QueuedMessageId) -> Result<String, QueueError> {
        self.change(|queue| match queue.take_for_prompt(id) {
            Ok(text) => (Ok(text), Some(HostNotice::QueuedMessageConsumed { id })),
            Err(error) => (Err(error), None),
        })
        .await
    }

    /// Makes a message a waiting steering message again; the window hears `message_queued`.
    pub(crate) async fn steer_again(
        &self,
        id: QueuedMessageId,
    ) -> Result<QueuedMessage, QueueError> {
        self.change(|queue| match queue.steer_again(id) {
            Ok(message) => {
                let notice = HostNotice::MessageQueued {
                    message: message.clone(),
                };
                (Ok(message), Some(notice))
            }
            Err(error) => (Err(error), None),
        })
        .await
    }

    /// A user message's `message_start` passed: when it is the next handed-over message, it was consumed.
    pub(crate) async fn message_started(&self, message: &AgentMessage) {
        if !matches!(message, AgentMessage::User(_)) || !self.lock().has_in_flight() {
            return;
        }
        self.change(|queue| {
            let notice = queue
                .consume(message)
                .map(|id| HostNotice::QueuedMessageConsumed { id });
            ((), notice)
        })
        .await;
    }

    /// After a run: what is still queued is held for the user; the window hears `queued_messages_held`.
    pub(crate) async fn hold_remaining(&self, agent: &Agent) {
        agent.clear_all_queues();
        self.change(|queue| {
            let ids = queue.hold_remaining();
            let notice = (!ids.is_empty()).then_some(HostNotice::QueuedMessagesHeld { ids });
            ((), notice)
        })
        .await;
    }

    /// Applies `change` under the lock and sends the notice it returns on a place reserved before (none when the
    /// forwarder is gone: the queue still changes).
    async fn change<T>(
        &self,
        change: impl FnOnce(&mut MessageQueue) -> (T, Option<HostNotice>),
    ) -> T {
        let permit = self.forward_tx.reserve().await.ok();
        let mut queue = self.lock();
        let (result, notice) = change(&mut queue);
        if let (Some(permit), Some(notice)) = (permit, notice) {
            permit.send(ForwardItem::Notice(notice));
        }
        drop(queue);
        result
    }

    fn lock(&self) -> MutexGuard<'_, MessageQueue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
