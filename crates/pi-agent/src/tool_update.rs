//! [`ToolUpdateSink`]: the `onUpdate` callback handed to a running tool.
//!
//! pi starts dispatching a `tool_execution_update` at the moment the tool reports, without making the tool wait,
//! and waits for every such dispatch before finalizing the call. To match the traces exactly (listeners observe
//! the update before the tool continues), [`ToolUpdateSink::send`] builds the emission and polls it once right
//! away; if a listener is still busy, the rest of the emission is queued for the loop, which drives the queue
//! alongside the tool and drains it before finalization. After the tool settled the sink is closed and later
//! reports are dropped silently.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use serde_json::Value;
use tokio::sync::mpsc;

use crate::agent_event::{AgentEvent, AgentEventSink, EmitError, EmitFuture};
use crate::agent_tool::AgentToolResult;

/// Reports progress of one tool execution. Cheap to clone; `send` never waits.
#[derive(Clone)]
pub struct ToolUpdateSink {
    target: Arc<Mutex<Option<UpdateTarget>>>,
}

struct UpdateTarget {
    sink: Arc<dyn AgentEventSink>,
    tool_call_id: String,
    tool_name: String,
    args: Value,
    pending: mpsc::UnboundedSender<EmitFuture>,
}

impl fmt::Debug for ToolUpdateSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolUpdateSink")
            .field("open", &self.is_open())
            .finish()
    }
}

impl ToolUpdateSink {
    /// A sink that drops every report (for running a tool outside an agent loop).
    pub fn detached() -> Self {
        Self {
            target: Arc::new(Mutex::new(None)),
        }
    }

    /// Reports a partial result: one `tool_execution_update` event carrying it verbatim. Ignored once the tool's
    /// execution has settled.
    pub fn send(&self, partial_result: AgentToolResult) {
        let emission = {
            let target = self.target.lock().unwrap_or_else(PoisonError::into_inner);
            let Some(target) = target.as_ref() else {
                return;
            };
            let event = AgentEvent::ToolExecutionUpdate {
                tool_call_id: target.tool_call_id.clone(),
                tool_name: target.tool_name.clone(),
                args: target.args.clone(),
                partial_result,
            };
            (target.sink.emit_owned(event), target.pending.clone())
        };
        let (mut future, pending) = emission;
        // Start the dispatch now, as pi does; the waker is replaced when the loop polls the rest.
        match Pin::new(&mut future).poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(Ok(())) => {}
            Poll::Ready(Err(error)) => {
                let _ = pending.send(EmitFuture::ready(Err(error)));
            }
            Poll::Pending => {
                let _ = pending.send(future);
            }
        }
    }

    /// True while reports are accepted.
    pub fn is_open(&self) -> bool {
        self.target
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// Opens a sink for one call; the receiver yields the emissions still in flight.
    pub(crate) fn open(
        sink: Arc<dyn AgentEventSink>,
        tool_call_id: String,
        tool_name: String,
        args: Value,
    ) -> (Self, mpsc::UnboundedReceiver<EmitFuture>) {
        let (pending, receiver) = mpsc::unbounded_channel();
        let target = UpdateTarget {
            sink,
            tool_call_id,
            tool_name,
            args,
            pending,
        };
        (
            Self {
                target: Arc::new(Mutex::new(Some(target))),
            },
            receiver,
        )
    }

    /// Stops accepting reports; the receiver ends once the queued emissions are taken.
    pub(crate) fn close(&self) {
        self.target
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }
}

/// Awaits every queued update emission in order, until the sink is closed and the queue is empty.
pub(crate) async fn drive_updates(
    mut receiver: mpsc::UnboundedReceiver<EmitFuture>,
) -> Result<(), EmitError> {
    while let Some(emission) = receiver.recv().await {
        emission.await?;
    }
    Ok(())
}
