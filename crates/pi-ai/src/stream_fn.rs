//! [`StreamFn`]: the shape of a function that streams one assistant response (spec 1.6, 6.6).

use std::sync::Arc;

use futures_util::future::BoxFuture;

use crate::context::Context;
use crate::event_stream::AssistantMessageEventStream;
use crate::model::Model;
use crate::options::SimpleStreamOptions;
use crate::registry::Models;

/// A stream function that broke its contract and failed instead of streaming an `error` event (pi: it threw).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct StreamFnError {
    /// What went wrong; becomes the failure message's text.
    pub message: String,
}

impl StreamFnError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// Streams one assistant response. Contract: request, model and runtime failures are encoded in the stream
/// (`error` event); `Err` is only the "stream function threw" path that the agent turns into a failed run.
pub type StreamFn = Arc<
    dyn Fn(
            Model,
            Context,
            SimpleStreamOptions,
        ) -> BoxFuture<'static, Result<AssistantMessageEventStream, StreamFnError>>
        + Send
        + Sync,
>;

impl Models {
    /// A [`StreamFn`] that streams through this collection ([`Models::stream_simple`]); never returns `Err`.
    pub fn stream_fn(self: &Arc<Self>) -> StreamFn {
        let models = Arc::clone(self);
        Arc::new(move |model, context, options| {
            let stream = models.stream_simple(&model, context, options);
            Box::pin(async move { Ok(stream) })
        })
    }
}
