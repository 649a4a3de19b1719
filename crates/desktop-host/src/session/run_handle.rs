//! [`RunHandle`]: a run the session accepted, and how to wait for its end.

use pi_agent::AgentError;
use tokio::sync::oneshot;

use crate::session::SessionError;
use crate::wire::RunId;

/// An accepted run: its id (every envelope of the run carries it) and its end.
#[derive(Debug)]
pub struct RunHandle {
    pub(super) run_id: RunId,
    pub(super) finished: oneshot::Receiver<Result<(), AgentError>>,
}

impl RunHandle {
    /// The run's id.
    pub fn run_id(&self) -> RunId {
        self.run_id
    }

    /// Resolves once the run settled and its `idle` notice went to the forwarder.
    pub async fn finished(self) -> Result<(), SessionError> {
        match self.finished.await {
            Ok(result) => result.map_err(SessionError::Agent),
            // The run's task was cancelled with the runtime: the run is over either way.
            Err(_) => Ok(()),
        }
    }
}
