//! The forwarder task: takes agent events and host notices in order, coalesces deltas, numbers the envelopes and
//! hands them to a bounded channel (the Tauri Channel bridge or `pi-chat` reads the other end).
//!
//! Contracts: envelopes leave in the order items arrived (a notice or any non-delta event first releases a held
//! delta); `seq` starts at 1 and has no gaps; a held delta leaves at most [`super::COALESCE_WINDOW`] after it
//! arrived; when the output's receiver is gone the task stops (and callers' sends start failing, which they
//! ignore); a `Flush` item is acknowledged only after everything before it was handed over.

use std::sync::Arc;

use pi_agent::AgentEvent;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::wire::coalesce::DeltaCoalescer;
use crate::wire::envelope::{Envelope, EnvelopePayload, HostNotice};

/// What the forwarder takes in.
#[derive(Debug)]
pub enum ForwardItem {
    /// An agent event, as the Agent's listener received it.
    Event(Arc<AgentEvent>),
    /// A host notice.
    Notice(HostNotice),
    /// Acknowledge once everything sent before has been handed to the output.
    Flush(oneshot::Sender<()>),
}

/// Starts the forwarder on the current runtime. It ends when `input` closes (after handing over what it holds) or
/// when `output`'s receiver is dropped.
pub fn spawn_forwarder(
    mut input: mpsc::Receiver<ForwardItem>,
    output: mpsc::Sender<Envelope>,
    mut coalescer: DeltaCoalescer,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut numbering = Numbering {
            next_seq: 1,
            output,
        };
        loop {
            let deadline = coalescer.deadline();
            let item = tokio::select! {
                biased;
                item = input.recv() => item,
                () = sleep_until_optional(deadline) => {
                    if let Some(event) = coalescer.flush()
                        && numbering.send(EnvelopePayload::Event(event)).await.is_err()
                    {
                        return;
                    }
                    continue;
                }
            };
            let delivered = match item {
                None => {
                    if let Some(event) = coalescer.flush() {
                        let _ = numbering.send(EnvelopePayload::Event(event)).await;
                    }
                    return;
                }
                Some(ForwardItem::Event(event)) => {
                    let mut delivered = Ok(());
                    for ready in coalescer.push(event, Instant::now()) {
                        delivered = numbering.send(EnvelopePayload::Event(ready)).await;
                        if delivered.is_err() {
                            break;
                        }
                    }
                    delivered
                }
                Some(ForwardItem::Notice(notice)) => match coalescer.flush() {
                    Some(event) => match numbering.send(EnvelopePayload::Event(event)).await {
                        Ok(()) => numbering.send(EnvelopePayload::Notice(notice)).await,
                        Err(closed) => Err(closed),
                    },
                    None => numbering.send(EnvelopePayload::Notice(notice)).await,
                },
                Some(ForwardItem::Flush(ack)) => {
                    let delivered = match coalescer.flush() {
                        Some(event) => numbering.send(EnvelopePayload::Event(event)).await,
                        None => Ok(()),
                    };
                    let _ = ack.send(());
                    delivered
                }
            };
            if delivered.is_err() {
                return;
            }
        }
    })
}

struct OutputClosed;

struct Numbering {
    next_seq: u64,
    output: mpsc::Sender<Envelope>,
}

impl Numbering {
    async fn send(&mut self, payload: EnvelopePayload) -> Result<(), OutputClosed> {
        let envelope = Envelope {
            seq: self.next_seq,
            payload,
        };
        self.output.send(envelope).await.map_err(|_| OutputClosed)?;
        self.next_seq += 1;
        Ok(())
    }
}

async fn sleep_until_optional(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
