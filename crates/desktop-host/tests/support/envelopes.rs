//! Reading a session's envelopes in tests: every envelope as JSON (what really crosses the wire), in order.

use std::sync::Arc;

use desktop_host::conversations::{Conversations, LiveSnapshot};
use desktop_host::store::ConversationId;
use desktop_host::wire::{Envelope, EnvelopeSink, SinkClosed, WireReplay};
use serde_json::Value;
use tokio::sync::mpsc;

/// Envelopes as JSON, read concurrently so the session never waits on a full channel.
pub(crate) struct EnvelopeLog {
    rx: mpsc::UnboundedReceiver<Value>,
    /// Every envelope seen so far.
    pub(crate) seen: Vec<Value>,
}

impl EnvelopeLog {
    /// Subscribes to the conversations' stream (under its own key) and keeps the envelopes of `conversation`;
    /// returns the snapshot the subscription answered with too.
    pub(crate) fn of_conversation(
        conversations: &Conversations,
        conversation: &ConversationId,
    ) -> (EnvelopeLog, LiveSnapshot) {
        let (tx, rx) = mpsc::unbounded_channel();
        let sink = Arc::new(OneConversation {
            conversation: conversation.clone(),
            tx,
        });
        let key = format!("test log of {}", conversation.as_str());
        let snapshot = conversations.subscribe(&key, sink);
        (EnvelopeLog::start(rx), snapshot)
    }

    /// Starts reading `envelopes`.
    pub(crate) fn start(mut envelopes: mpsc::UnboundedReceiver<Envelope>) -> EnvelopeLog {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(envelope) = envelopes.recv().await {
                if tx.send(serde_json::to_value(&envelope).unwrap()).is_err() {
                    return;
                }
            }
        });
        EnvelopeLog {
            rx,
            seen: Vec::new(),
        }
    }

    /// Waits for the next envelope matching `predicate` (keeping every envelope in `seen`).
    pub(crate) async fn wait_for(&mut self, predicate: impl Fn(&Value) -> bool) -> Value {
        loop {
            let envelope = self.rx.recv().await.expect("the envelope stream ended");
            self.seen.push(envelope.clone());
            if predicate(&envelope) {
                return envelope;
            }
        }
    }

    /// Waits for the next `idle` notice.
    pub(crate) async fn wait_for_idle(&mut self) {
        self.wait_for(is_idle).await;
    }
}

/// Passes on the envelopes of one conversation.
struct OneConversation {
    conversation: ConversationId,
    tx: mpsc::UnboundedSender<Envelope>,
}

impl EnvelopeSink for OneConversation {
    fn deliver(&self, envelope: &Envelope) -> Result<(), SinkClosed> {
        if envelope.conversation_id.as_ref() != Some(&self.conversation) {
            return Ok(());
        }
        self.tx.send(envelope.clone()).map_err(|_| SinkClosed)
    }
}

/// True for an `idle` notice.
pub(crate) fn is_idle(envelope: &Value) -> bool {
    envelope["kind"] == "notice" && envelope["notice"]["type"] == "idle"
}

/// The agent events among `envelopes`.
pub(crate) fn events(envelopes: &[Value]) -> Vec<&Value> {
    envelopes
        .iter()
        .filter(|envelope| envelope["kind"] == "event")
        .map(|envelope| &envelope["event"])
        .collect()
}

/// Replays `envelopes`, failing the test on a broken promise of the wire.
pub(crate) fn replay(envelopes: &[Value]) -> WireReplay {
    let mut replay = WireReplay::new();
    for envelope in envelopes {
        replay
            .apply(envelope)
            .unwrap_or_else(|error| panic!("replay failed at {envelope}: {error}"));
    }
    replay
}

/// Text of an assistant message in pi's JSON.
pub(crate) fn assistant_text(message: &Value) -> String {
    message["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|block| block["text"].as_str())
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default()
}
