//! What a loopback server answers: a complete body, or a stream written in paced pieces, and how that stream
//! ends.

use std::time::Duration;

use serde_json::Value;

/// One scripted answer to a request.
#[derive(Debug, Clone)]
pub struct Response {
    pub(crate) status: u16,
    /// Written first, in this order, before the headers the body needs.
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Body,
}

#[derive(Debug, Clone)]
pub(crate) enum Body {
    /// Sent with `content-length`; the connection stays open for the next request.
    Complete {
        content_type: String,
        bytes: Vec<u8>,
    },
    Stream(Stream),
}

impl Response {
    /// `status` with a complete body of `content_type`, sent with `content-length`; the connection then
    /// stays open for the client's next request.
    pub fn complete(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: Body::Complete {
                content_type: content_type.to_owned(),
                bytes: body.into(),
            },
        }
    }

    /// `status` with `body` as compact JSON (`application/json`).
    pub fn json(status: u16, body: &Value) -> Self {
        Self::complete(status, "application/json", body.to_string())
    }

    /// `200 OK` with a streamed body; unless the stream is chunked, the connection closes after it.
    pub fn stream(stream: Stream) -> Self {
        Self {
            status: 200,
            headers: Vec::new(),
            body: Body::Stream(stream),
        }
    }

    /// One more header, written before the ones the body needs (content type, length or framing).
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// A streamed body: segments of bytes with optional pauses between them, written in pieces as [`Pacing`] says,
/// then ended as [`StreamEnd`] says.
#[derive(Debug, Clone)]
pub struct Stream {
    pub(crate) content_type: String,
    pub(crate) segments: Vec<Segment>,
    pub(crate) pacing: Pacing,
    pub(crate) chunked: bool,
    pub(crate) end: StreamEnd,
}

/// Bytes written one after the other, then a pause before the next segment.
#[derive(Debug, Clone)]
pub(crate) struct Segment {
    pub(crate) bytes: Vec<u8>,
    pub(crate) pause_after: Duration,
}

impl Stream {
    /// An empty `text/event-stream` body, each segment in one write, closed at the end.
    pub fn sse() -> Self {
        Self {
            content_type: "text/event-stream".to_owned(),
            segments: Vec::new(),
            pacing: Pacing::default(),
            chunked: false,
            end: StreamEnd::Close,
        }
    }

    /// Another content type than `text/event-stream`.
    #[must_use]
    pub fn content_type(mut self, content_type: &str) -> Self {
        content_type.clone_into(&mut self.content_type);
        self
    }

    /// Appends `bytes`, written right after what came before.
    #[must_use]
    pub fn write(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.segments.push(Segment {
            bytes: bytes.into(),
            pause_after: Duration::ZERO,
        });
        self
    }

    /// Waits `pause` after what was appended so far, before the bytes appended next.
    #[must_use]
    pub fn pause(mut self, pause: Duration) -> Self {
        match self.segments.last_mut() {
            Some(last) => last.pause_after += pause,
            None => {
                self.segments.push(Segment {
                    bytes: Vec::new(),
                    pause_after: pause,
                });
            }
        }
        self
    }

    /// How the bytes of each segment are cut into writes.
    #[must_use]
    pub fn paced(mut self, pacing: Pacing) -> Self {
        self.pacing = pacing;
        self
    }

    /// Sends the body with `transfer-encoding: chunked`, one chunk a write, instead of closing the connection
    /// to end it.
    #[must_use]
    pub fn chunked(mut self) -> Self {
        self.chunked = true;
        self
    }

    /// How the stream ends once every segment was written ([`StreamEnd::Close`] unless set).
    #[must_use]
    pub fn ending(mut self, end: StreamEnd) -> Self {
        self.end = end;
        self
    }
}

/// How the bytes of a segment are cut into writes: every `write_size` bytes, and inside multi-byte UTF-8
/// characters when `split_utf8` is set; `delay` after every write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pacing {
    /// The largest write in bytes; `None` writes a segment at once (unless `split_utf8` cuts it).
    pub write_size: Option<usize>,
    /// The wait after every write.
    pub delay: Duration,
    /// Cuts every multi-byte UTF-8 character too: the n-th one after its `(n mod (len - 1)) + 1`-th byte.
    pub split_utf8: bool,
}

/// What a stream does once its segments are written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StreamEnd {
    /// Finishes the body (the last, empty chunk when chunked) and closes the connection.
    #[default]
    Close,
    /// Writes only the first `n` bytes of the body, waits 50 ms for the client to read them, then aborts the
    /// connection with a TCP reset instead of closing it.
    ResetAfter(usize),
    /// Sends nothing more and keeps the connection open until the client closes it.
    Hold,
    /// Keeps the connection open and writes what [`crate::LoopbackServer::feed`] is given, until
    /// [`crate::LoopbackServer::finish_feed`] ends the body or the client closes the connection.
    Feed,
}
