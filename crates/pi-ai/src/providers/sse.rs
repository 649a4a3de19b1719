//! Server-sent events from an HTTP response body, with the two limits a provider stream needs: an idle
//! timeout between body bytes and cancellation. SSE framing itself is the `sse-stream` crate's.

use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use sse_stream::SseByteStream;
use tokio_util::sync::CancellationToken;

/// Why reading the event stream stopped early.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SseFailure {
    /// The cancellation token fired; the response body has been dropped.
    #[error("Request was aborted")]
    Aborted,
    /// No body bytes arrived within the idle timeout.
    #[error("no data received from the provider for {:.1} s", .0.as_secs_f64())]
    Idle(Duration),
    /// The connection broke (reset, truncated chunked body, …).
    #[error("{0}")]
    Transport(String),
    /// The body is not valid SSE (invalid UTF-8 in a field).
    #[error("invalid event stream: {0}")]
    Decode(String),
}

/// One dispatched SSE event; `event` is the `event:` field (absent for plain messages).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub(crate) event: Option<String>,
    pub(crate) data: String,
}

#[derive(Debug, thiserror::Error)]
enum BodyError {
    #[error("idle")]
    Idle,
    #[error("{0}")]
    Transport(String),
}

type ByteStream = Pin<Box<dyn Stream<Item = Result<Bytes, BodyError>> + Send>>;

/// How a CR that ends one body read and an LF that starts the next are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LineBreaks {
    /// As the SSE specification says: together they are one line break.
    Standard,
    /// As pi-ai 0.85.1's Anthropic parser takes them: the CR ends the line and the LF is a blank line of its
    /// own, which dispatches the event being read without its data (so it then fails to parse). The
    /// provider-conformance suite requires pi's stop reason for this case; Anthropic itself sends LF only.
    SplitCrLfAcrossReads,
}

/// Events of one response body. Dropping it drops the response and so closes the connection.
pub(crate) struct SseEvents {
    inner: SseByteStream<ByteStream>,
    cancel: CancellationToken,
    idle: Option<Duration>,
}

impl SseEvents {
    /// Wraps a response. `idle` bounds the silence between two body reads.
    pub(crate) fn new(
        response: reqwest::Response,
        line_breaks: LineBreaks,
        cancel: CancellationToken,
        idle: Option<Duration>,
    ) -> Self {
        Self::from_bytes(
            response
                .bytes_stream()
                .map(|r| r.map_err(|e| transport_text(&e))),
            line_breaks,
            cancel,
            idle,
        )
    }

    /// Wraps any byte stream (unit tests feed bytes directly).
    pub(crate) fn from_bytes<S>(
        bytes: S,
        line_breaks: LineBreaks,
        cancel: CancellationToken,
        idle: Option<Duration>,
    ) -> Self
    where
        S: Stream<Item = Result<Bytes, String>> + Send + 'static,
    {
        let bytes = Box::pin(bytes);
        let mut previous_ended_in_cr = false;
        let timed: ByteStream = Box::pin(
            futures_util::stream::unfold(Some(bytes), move |state| async move {
                let mut bytes = state?;
                let next = match idle {
                    Some(limit) => match tokio::time::timeout(limit, bytes.next()).await {
                        Ok(next) => next,
                        Err(_) => return Some((Err(BodyError::Idle), None)),
                    },
                    None => bytes.next().await,
                };
                match next? {
                    Ok(chunk) => Some((Ok(chunk), Some(bytes))),
                    Err(text) => Some((Err(BodyError::Transport(text)), None)),
                }
            })
            .map(move |read| {
                let chunk = read?;
                if line_breaks == LineBreaks::Standard {
                    return Ok(chunk);
                }
                let split = previous_ended_in_cr && chunk.first() == Some(&b'\n');
                previous_ended_in_cr = chunk.last() == Some(&b'\r');
                if !split {
                    return Ok(chunk);
                }
                // A CR before the LF turns the LF into a blank line of its own for a standard parser.
                let mut widened = Vec::with_capacity(chunk.len() + 1);
                widened.push(b'\r');
                widened.extend_from_slice(&chunk);
                Ok(Bytes::from(widened))
            }),
        );
        Self {
            inner: SseByteStream::new(timed),
            cancel,
            idle,
        }
    }

    /// The next event; `Ok(None)` at the end of the body.
    pub(crate) async fn next(&mut self) -> Result<Option<SseEvent>, SseFailure> {
        let item = tokio::select! {
            biased;
            () = self.cancel.cancelled() => return Err(SseFailure::Aborted),
            item = self.inner.next() => item,
        };
        match item {
            None => Ok(None),
            Some(Ok(sse)) => Ok(Some(SseEvent {
                event: sse.event,
                data: sse.data.unwrap_or_default(),
            })),
            Some(Err(sse_stream::Error::Body(source))) => {
                match source.downcast_ref::<BodyError>() {
                    Some(BodyError::Idle) => Err(SseFailure::Idle(self.idle.unwrap_or_default())),
                    Some(BodyError::Transport(text)) => Err(SseFailure::Transport(text.clone())),
                    None => Err(SseFailure::Transport(source.to_string())),
                }
            }
            Some(Err(other)) => Err(SseFailure::Decode(other.to_string())),
        }
    }
}

/// A transport error as one line: reqwest's message plus its innermost cause.
pub(crate) fn transport_text(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    let mut innermost = None;
    while let Some(s) = source {
        innermost = Some(s.to_string());
        source = s.source();
    }
    if let Some(inner) = innermost.filter(|i| !text.contains(i.as_str())) {
        text.push_str(": ");
        text.push_str(&inner);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn events_of(chunks: &[&str], line_breaks: LineBreaks) -> Vec<SseEvent> {
        let reads: Vec<Result<Bytes, String>> = chunks
            .iter()
            .map(|c| Ok(Bytes::copy_from_slice(c.as_bytes())))
            .collect();
        let mut events = SseEvents::from_bytes(
            futures_util::stream::iter(reads),
            line_breaks,
            CancellationToken::new(),
            None,
        );
        let mut out = Vec::new();
        while let Some(event) = events.next().await.unwrap() {
            out.push(event);
        }
        out
    }

    fn event(name: &str, data: &str) -> SseEvent {
        SseEvent {
            event: Some(name.to_string()),
            data: data.to_string(),
        }
    }

    const SPLIT: [&str; 2] = [
        "event: delta\r",
        "\ndata: {\"n\":1}\r\n\r\nevent: stop\r\ndata: {}\r\n\r\n",
    ];

    #[tokio::test]
    async fn a_crlf_split_across_reads_is_one_line_break_by_the_standard() {
        assert_eq!(
            events_of(&SPLIT, LineBreaks::Standard).await,
            vec![event("delta", r#"{"n":1}"#), event("stop", "{}")]
        );
    }

    #[tokio::test]
    async fn pis_anthropic_line_breaks_dispatch_the_event_without_its_data() {
        let events = events_of(&SPLIT, LineBreaks::SplitCrLfAcrossReads).await;
        assert_eq!(events.first(), Some(&event("delta", "")));
        assert_eq!(events.last(), Some(&event("stop", "{}")));
    }

    #[tokio::test]
    async fn crlf_within_one_read_is_one_line_break_either_way() {
        let body = ["event: delta\r\ndata: {}\r\n\r\n"];
        for line_breaks in [LineBreaks::Standard, LineBreaks::SplitCrLfAcrossReads] {
            assert_eq!(
                events_of(&body, line_breaks).await,
                vec![event("delta", "{}")]
            );
        }
    }
}
