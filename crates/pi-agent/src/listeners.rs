//! Subscriptions and event delivery: the listeners of an [`crate::Agent`] and the sink that hands every event of a
//! run to the reducer, then to each listener in subscription order (spec 6.4).

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Weak};
use std::task::{Context as TaskContext, Poll, Waker};

use futures_util::FutureExt;
use tokio_util::sync::CancellationToken;

use crate::agent::AgentInner;
use crate::agent_event::{AgentEvent, AgentEventSink, EmitError, EmitFuture};
use crate::guard::panic_message;
use crate::loop_config::{HookError, HookFuture};

/// A subscriber: awaited in subscription order for every event, with the run's cancellation token. An `Err` (or a
/// panic) stops delivery of that event to later listeners and fails the run (spec 2.9).
pub type Listener = Arc<dyn Fn(Arc<AgentEvent>, CancellationToken) -> HookFuture<()> + Send + Sync>;

/// A synchronous subscriber (see [`crate::Agent::subscribe_sync`]): called in place, with borrowed arguments.
pub type SyncListener =
    Arc<dyn Fn(&AgentEvent, &CancellationToken) -> Result<(), HookError> + Send + Sync>;

/// A registered subscriber.
#[derive(Clone)]
pub(crate) enum Subscriber {
    Async(Listener),
    Sync(SyncListener),
}

/// Returned by [`crate::Agent::subscribe`]; call [`Subscription::unsubscribe`] to remove the listener.
#[derive(Debug)]
pub struct Subscription {
    pub(crate) agent: Weak<AgentInner>,
    pub(crate) id: u64,
}

impl Subscription {
    /// Removes the listener (a no-op if the agent is gone). A listener removed during a dispatch is skipped for
    /// the rest of it.
    pub fn unsubscribe(self) {
        if let Some(inner) = self.agent.upgrade() {
            inner.lock().listeners.retain(|(id, _)| *id != self.id);
        }
    }
}

/// Delivers one run's events: the reducer first, then every listener in subscription order (spec 6.4).
///
/// The work starts when `emit` is called (the loop awaits it right away): listeners that finish synchronously cost
/// no allocation; the first one that does not is awaited, and the rest follow in order.
pub(crate) struct RunSink {
    pub(crate) inner: Arc<AgentInner>,
    pub(crate) run_id: u64,
    pub(crate) cancel: CancellationToken,
}

impl AgentEventSink for RunSink {
    fn emit(&self, event: Arc<AgentEvent>) -> EmitFuture {
        {
            let mut shared = self.inner.lock();
            // Events of a run that already settled are refused (spec 2.5 hazard; 6.7 d).
            if shared.run.as_ref().map(|run| run.id) != Some(self.run_id) {
                return EmitFuture::ready(Ok(()));
            }
            shared.live.reduce(&event);
        }
        let mut last_called = 0;
        while let Some((id, listener)) = next_listener(&self.inner, last_called) {
            last_called = id;
            let listener = match listener {
                Subscriber::Sync(listener) => {
                    match std::panic::catch_unwind(AssertUnwindSafe(|| {
                        listener(&event, &self.cancel)
                    })) {
                        Ok(Ok(())) => continue,
                        Ok(Err(error)) => {
                            return EmitFuture::ready(Err(EmitError::new(error.message())));
                        }
                        Err(panic) => {
                            return EmitFuture::ready(Err(EmitError::new(panic_message(
                                "listener", &*panic,
                            ))));
                        }
                    }
                }
                Subscriber::Async(listener) => listener,
            };
            let started = std::panic::catch_unwind(AssertUnwindSafe(|| {
                let mut call = listener(Arc::clone(&event), self.cancel.clone());
                let poll = call
                    .as_mut()
                    .poll(&mut TaskContext::from_waker(Waker::noop()));
                (call, poll)
            }));
            match started {
                Ok((_, Poll::Ready(Ok(())))) => {}
                Ok((_, Poll::Ready(Err(error)))) => {
                    return EmitFuture::ready(Err(EmitError::new(error.message())));
                }
                Err(panic) => {
                    return EmitFuture::ready(Err(EmitError::new(panic_message(
                        "listener", &*panic,
                    ))));
                }
                Ok((call, Poll::Pending)) => {
                    let inner = Arc::clone(&self.inner);
                    let cancel = self.cancel.clone();
                    return EmitFuture::new(async move {
                        finish_listener(call).await?;
                        dispatch_after(&inner, &cancel, &event, last_called).await
                    });
                }
            }
        }
        EmitFuture::ready(Ok(()))
    }
}

/// The first listener subscribed after `last_called` (live iteration: later subscriptions are seen, removed
/// listeners are skipped).
fn next_listener(inner: &AgentInner, last_called: u64) -> Option<(u64, Subscriber)> {
    let shared = inner.lock();
    shared
        .listeners
        .iter()
        .find(|(id, _)| *id > last_called)
        .map(|(id, listener)| (*id, listener.clone()))
}

async fn finish_listener(call: HookFuture<()>) -> Result<(), EmitError> {
    match AssertUnwindSafe(call).catch_unwind().await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(error)) => Err(EmitError::new(error.message())),
        Err(panic) => Err(EmitError::new(panic_message("listener", &*panic))),
    }
}

/// Awaits the listeners subscribed after `last_called`, in order.
async fn dispatch_after(
    inner: &AgentInner,
    cancel: &CancellationToken,
    event: &Arc<AgentEvent>,
    mut last_called: u64,
) -> Result<(), EmitError> {
    while let Some((id, listener)) = next_listener(inner, last_called) {
        last_called = id;
        let call = match listener {
            Subscriber::Sync(listener) => {
                std::panic::catch_unwind(AssertUnwindSafe(|| listener(event, cancel)))
                    .map_err(|panic| EmitError::new(panic_message("listener", &*panic)))?
                    .map_err(|error| EmitError::new(error.message()))?;
                continue;
            }
            Subscriber::Async(listener) => std::panic::catch_unwind(AssertUnwindSafe(|| {
                listener(Arc::clone(event), cancel.clone())
            }))
            .map_err(|panic| EmitError::new(panic_message("listener", &*panic)))?,
        };
        finish_listener(call).await?;
    }
    Ok(())
}
