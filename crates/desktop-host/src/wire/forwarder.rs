//! The forwarder task, one per session: takes agent events and host notices in order, coalesces deltas, numbers
//! the envelopes, stamps them with the run they belong to and hands them to the session's [`EnvelopeSink`].
//!
//! Contracts: envelopes leave in the order items arrived (a notice or any non-delta event first releases a held
//! delta); `seq` starts at 1 and has no gaps; a held delta leaves at most [`super::COALESCE_WINDOW`] after it
//! arrived; a run's envelopes, from the first after its [`ForwardItem::RunStarted`] to its `idle` notice, carry
//! its [`RunId`]. The task ends when its input closes, after handing over what it holds.

use std::sync::Arc;

use pi_agent::{AgentEvent, AgentMessage};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::wire::coalesce::DeltaCoalescer;
use crate::wire::envelope::{Envelope, EnvelopePayload, HostNotice, RunId};
use crate::wire::sink::EnvelopeSink;

/// What the forwarder takes in.
#[derive(Debug)]
pub enum ForwardItem {
    /// A run begins with this transcript (the messages before its first event).
    RunStarted {
        /// The run.
        run: RunId,
        /// The conversation before the run.
        transcript: Vec<AgentMessage>,
    },
    /// An agent event, as the Agent's listener received it.
    Event(Arc<AgentEvent>),
    /// A host notice; `idle` ends the run in progress.
    Notice(HostNotice),
}

/// Starts the forwarder on the current runtime.
pub fn spawn_forwarder(
    mut input: mpsc::Receiver<ForwardItem>,
    sink: Arc<dyn EnvelopeSink>,
    mut coalescer: DeltaCoalescer,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut numbering = Numbering {
            next_seq: 1,
            run: None,
            sink,
        };
        loop {
            let deadline = coalescer.deadline();
            let item = tokio::select! {
                biased;
                item = input.recv() => item,
                () = sleep_until_optional(deadline) => {
                    if let Some(event) = coalescer.flush(Instant::now()) {
                        numbering.send(EnvelopePayload::Event(event));
                    }
                    continue;
                }
            };
            match item {
                None => {
                    if let Some(event) = coalescer.flush(Instant::now()) {
                        numbering.send(EnvelopePayload::Event(event));
                    }
                    return;
                }
                Some(ForwardItem::RunStarted { run, transcript }) => {
                    if let Some(event) = coalescer.flush(Instant::now()) {
                        numbering.send(EnvelopePayload::Event(event));
                    }
                    numbering.sink.run_started(run, &transcript);
                    numbering.run = Some(run);
                }
                Some(ForwardItem::Event(event)) => {
                    for ready in coalescer.push(event, Instant::now()) {
                        numbering.send(EnvelopePayload::Event(ready));
                    }
                }
                Some(ForwardItem::Notice(notice)) => {
                    if let Some(event) = coalescer.flush(Instant::now()) {
                        numbering.send(EnvelopePayload::Event(event));
                    }
                    let ends_run = notice == HostNotice::Idle;
                    numbering.send(EnvelopePayload::Notice(notice));
                    if ends_run {
                        numbering.run = None;
                    }
                }
            }
        }
    })
}

struct Numbering {
    next_seq: u64,
    run: Option<RunId>,
    sink: Arc<dyn EnvelopeSink>,
}

impl Numbering {
    /// Numbers and delivers; a sink whose receiver is gone is the receiver's business (the run goes on).
    fn send(&mut self, payload: EnvelopePayload) {
        let mut envelope = Envelope::new(self.next_seq, payload);
        envelope.run_id = self.run;
        self.next_seq += 1;
        let _ = self.sink.deliver(&envelope);
    }
}

async fn sleep_until_optional(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
