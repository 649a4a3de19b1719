//! Where a session's forwarder hands its envelopes: an [`EnvelopeSink`]. The conversations service's live
//! stream is one (it fans every conversation out to the windows that subscribed); a bare session in a test or in
//! `pi-chat` uses an unbounded channel.
//!
//! Contract: the forwarder calls the sink from its one task, in envelope order, and never holds a lock while
//! doing so. `deliver` must not block (a window's Channel queues the message; a channel sender never waits).

use pi_agent::AgentMessage;
use tokio::sync::mpsc;

use crate::wire::envelope::{Envelope, RunId};

/// The receiver of a sink is gone (a window closed or reloaded): stop sending to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the envelope receiver is gone")]
pub struct SinkClosed;

/// Takes a session's envelopes, in order.
pub trait EnvelopeSink: Send + Sync {
    /// A run begins; `transcript` is the conversation as it stood before the run's first event. Called before
    /// the run's first envelope is delivered.
    fn run_started(&self, run: RunId, transcript: &[AgentMessage]) {
        let _ = (run, transcript);
    }

    /// Takes one envelope. An `Err` says the receiver is gone for good.
    fn deliver(&self, envelope: &Envelope) -> Result<(), SinkClosed>;
}

impl EnvelopeSink for mpsc::UnboundedSender<Envelope> {
    fn deliver(&self, envelope: &Envelope) -> Result<(), SinkClosed> {
        self.send(envelope.clone()).map_err(|_| SinkClosed)
    }
}
