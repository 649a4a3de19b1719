//! [`StreamFn`]: the seam between the agent and the model layer (spec 1.6, 6.6).
//!
//! Contract: a stream function must not fail for request, model or runtime problems; those are encoded in the
//! returned stream as an `error` event (stopReason `error` or `aborted`, with an `errorMessage`). The `Err` arm
//! exists only for the contract violation pi survives (a stream function that throws): the low-level loop
//! returns it as an error and `Agent` turns it into a failure message.

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use pi_ai::{AssistantMessageEventStream, Context, Model, SimpleStreamOptions};

pub use pi_ai::{StreamFn, StreamFnError};

/// The future a [`StreamFn`] returns.
pub type StreamFnFuture = BoxFuture<'static, Result<AssistantMessageEventStream, StreamFnError>>;

/// Wraps an async function as a [`StreamFn`].
pub fn stream_fn<F, Fut>(function: F) -> StreamFn
where
    F: Fn(Model, Context, SimpleStreamOptions) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<AssistantMessageEventStream, StreamFnError>> + Send + 'static,
{
    Arc::new(move |model, context, options| function(model, context, options).boxed())
}

/// Debug helper so configs holding a [`StreamFn`] can derive `Debug`.
pub(crate) struct OpaqueFn;

impl fmt::Debug for OpaqueFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<fn>")
    }
}
