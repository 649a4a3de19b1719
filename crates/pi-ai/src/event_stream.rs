//! [`EventStream`]: the async queue every assistant and agent stream is built on (spec 1.5, 6.3).
//!
//! The producer half ([`EventSender`]) pushes without ever waiting. The first *completing* event (chosen by the
//! extractor given at construction) marks the stream done and resolves the final result; the event itself is
//! still delivered and later pushes are ignored. The consumer half ([`EventStream`]) is a [`Stream`] yielding the
//! queued events and then `None`. Unlike pi, the result always resolves: ending without a result, or dropping
//! every sender before one, resolves it with [`StreamError::EndedWithoutResult`].

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context as TaskContext, Poll};

use futures_util::{Stream, StreamExt};
use tokio::sync::{mpsc, watch};

use crate::event::{AssistantMessageEvent, ErrorReason};
use crate::message::{AssistantMessage, StopReason};

/// Why a stream's result is unavailable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// The producer ended the stream (or was dropped) without a completing event or a result.
    #[error("stream ended without a result")]
    EndedWithoutResult,
}

/// Picks the result out of a completing event; `None` for every other event.
pub type ResultExtractor<T, R> = fn(&T) -> Option<R>;

type ResultSlot<R> = Option<Result<R, StreamError>>;

struct Shared<T, R> {
    /// `None` once the stream is done; dropping the only sender closes the consumer's channel.
    events: Mutex<Option<mpsc::UnboundedSender<T>>>,
    result: watch::Sender<ResultSlot<R>>,
    extract: ResultExtractor<T, R>,
}

/// Stores `value` unless a result is already there (first resolution wins).
fn resolve_slot<R>(result: &watch::Sender<ResultSlot<R>>, value: Result<R, StreamError>) {
    result.send_if_modified(|slot| {
        if slot.is_some() {
            return false;
        }
        *slot = Some(value);
        true
    });
}

impl<T, R> Shared<T, R> {
    fn resolve(&self, value: Result<R, StreamError>) {
        resolve_slot(&self.result, value);
    }
}

impl<T, R> Drop for Shared<T, R> {
    fn drop(&mut self) {
        self.resolve(Err(StreamError::EndedWithoutResult));
    }
}

/// The producer half of an [`EventStream`]. Cloneable; every method takes `&self` and never waits.
pub struct EventSender<T, R> {
    shared: Arc<Shared<T, R>>,
}

impl<T, R> Clone for EventSender<T, R> {
    fn clone(&self) -> Self {
        Self {
            shared: Arc::clone(&self.shared),
        }
    }
}

impl<T, R> EventSender<T, R> {
    /// Queues `event`. Ignored once the stream is done. A completing event resolves the result (first wins),
    /// is delivered, and marks the stream done.
    pub fn push(&self, event: T) {
        let mut events = self
            .shared
            .events
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let Some(sender) = events.as_ref() else {
            return;
        };
        let completion = (self.shared.extract)(&event);
        // A consumer that went away is not an error for the producer.
        let _ = sender.send(event);
        if let Some(result) = completion {
            self.shared.resolve(Ok(result));
            *events = None;
        }
    }

    /// Marks the stream done. Resolves the result with `result` if none was resolved yet; with `None` and no
    /// prior completing event the result becomes [`StreamError::EndedWithoutResult`].
    pub fn end(&self, result: Option<R>) {
        let mut events = self
            .shared
            .events
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *events = None;
        self.shared
            .resolve(result.ok_or(StreamError::EndedWithoutResult));
    }

    /// True once a completing event was pushed or [`EventSender::end`] was called.
    pub fn is_done(&self) -> bool {
        self.shared
            .events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
    }
}

/// The consumer half: a single-consumer [`Stream`] of events plus an awaitable final result.
pub struct EventStream<T, R> {
    source: Source<T, R>,
    result: watch::Receiver<ResultSlot<R>>,
}

/// Where events come from.
enum Source<T, R> {
    /// Pushed by an [`EventSender`].
    Channel(mpsc::UnboundedReceiver<T>),
    /// Pulled one at a time from a producer stream, which runs only when the consumer asks for the next event.
    Pulled {
        /// `None` once a completing event was yielded or the source ended.
        events: Option<Pin<Box<dyn Stream<Item = T> + Send>>>,
        extract: ResultExtractor<T, R>,
        /// Dropping it (with the stream) resolves pending `result()` futures with `EndedWithoutResult`.
        result: watch::Sender<ResultSlot<R>>,
    },
}

impl<T, R> EventStream<T, R> {
    /// Creates a connected sender and stream; `extract` says which events complete the stream and with what.
    pub fn channel(extract: ResultExtractor<T, R>) -> (EventSender<T, R>, EventStream<T, R>) {
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let (result_tx, result_rx) = watch::channel(None);
        let shared = Shared {
            events: Mutex::new(Some(events_tx)),
            result: result_tx,
            extract,
        };
        let stream = EventStream {
            source: Source::Channel(events_rx),
            result: result_rx,
        };
        (
            EventSender {
                shared: Arc::new(shared),
            },
            stream,
        )
    }

    /// A pull-driven stream: `poll_next` polls `events` directly (no channel, no task), so the producer runs
    /// only when the consumer asks for the next event. The first event for which `extract` returns `Some` resolves
    /// the result and is the last one yielded. If `events` ends first, or this stream is dropped before that,
    /// the result is [`StreamError::EndedWithoutResult`]. The result resolves only as events are pulled.
    pub fn from_stream(
        events: impl Stream<Item = T> + Send + 'static,
        extract: ResultExtractor<T, R>,
    ) -> EventStream<T, R> {
        let (result_tx, result_rx) = watch::channel(None);
        let source = Source::Pulled {
            events: Some(Box::pin(events)),
            extract,
            result: result_tx,
        };
        EventStream {
            source,
            result: result_rx,
        }
    }
}

impl<T, R: Clone + Send + Sync + 'static> EventStream<T, R> {
    /// The final result. Resolves when the first completing event is pushed or the stream is ended; may be
    /// awaited before, during or after iteration (iteration is not required for it to resolve).
    pub fn result(&self) -> impl Future<Output = Result<R, StreamError>> + Send + 'static {
        let mut receiver = self.result.clone();
        async move {
            loop {
                let current = receiver.borrow_and_update().clone();
                if let Some(result) = current {
                    return result;
                }
                if receiver.changed().await.is_err() {
                    // The sender is gone; its drop resolved the slot before closing.
                    let last = receiver.borrow().clone();
                    return last.unwrap_or(Err(StreamError::EndedWithoutResult));
                }
            }
        }
    }
}

impl<T: Send, R: Clone + Send + Sync + 'static> EventStream<T, R> {
    /// Drains the remaining events and returns the final result.
    pub async fn finish(mut self) -> Result<R, StreamError> {
        while self.next().await.is_some() {}
        self.result().await
    }
}

impl<T, R> Stream for EventStream<T, R> {
    type Item = T;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<T>> {
        match &mut self.source {
            Source::Channel(events) => events.poll_recv(cx),
            Source::Pulled {
                events,
                extract,
                result,
            } => {
                let Some(source) = events.as_mut() else {
                    return Poll::Ready(None);
                };
                match source.as_mut().poll_next(cx) {
                    Poll::Pending => Poll::Pending,
                    Poll::Ready(None) => {
                        *events = None;
                        resolve_slot(result, Err(StreamError::EndedWithoutResult));
                        Poll::Ready(None)
                    }
                    Poll::Ready(Some(event)) => {
                        if let Some(value) = extract(&event) {
                            *events = None;
                            resolve_slot(result, Ok(value));
                        }
                        Poll::Ready(Some(event))
                    }
                }
            }
        }
    }
}

/// A stream of [`AssistantMessageEvent`]s whose result is the final [`AssistantMessage`] (from `done` or `error`).
pub type AssistantMessageEventStream = EventStream<AssistantMessageEvent, AssistantMessage>;

/// The producer half of an [`AssistantMessageEventStream`].
pub type AssistantMessageEventSender = EventSender<AssistantMessageEvent, AssistantMessage>;

fn assistant_result(event: &AssistantMessageEvent) -> Option<AssistantMessage> {
    event.final_message().cloned()
}

/// Creates a connected assistant event sender and stream (completes on `done` / `error`).
pub fn assistant_message_channel() -> (AssistantMessageEventSender, AssistantMessageEventStream) {
    EventStream::channel(assistant_result)
}

impl AssistantMessageEventStream {
    /// A pull-driven assistant stream over `events` (see [`EventStream::from_stream`]); completes on the first
    /// `done` / `error`.
    pub fn from_events(events: impl Stream<Item = AssistantMessageEvent> + Send + 'static) -> Self {
        EventStream::from_stream(events, assistant_result)
    }

    /// A stream whose only event is `error` with `message` (which should have stopReason `error`/`aborted`).
    pub fn from_error(message: AssistantMessage) -> Self {
        let (sender, stream) = assistant_message_channel();
        let reason = match message.stop_reason {
            StopReason::Aborted => ErrorReason::Aborted,
            StopReason::Pending
            | StopReason::Stop
            | StopReason::Length
            | StopReason::ToolUse
            | StopReason::Error
            | StopReason::Deferred => ErrorReason::Error,
        };
        sender.push(AssistantMessageEvent::Error {
            reason,
            error: Arc::new(message),
        });
        stream
    }
}
