//! An OpenAI-compatible chat-completions server on loopback. The n-th request to `…/chat/completions` gets the
//! n-th [`Reply`] (the last one repeats, so a client that retries sees the same answer again); other paths get
//! a 404. Chunk objects are streamed as `data:` events, and the builders in this module make them.

mod chunks;

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use serde_json::{Value, json};

pub use chunks::{MODEL, text_chunks, text_delta, tool_call_chunks, unfinished_text_chunks};

use crate::{LoopbackServer, Request, Response, ServerError, Stream, StreamEnd};

/// The event that ends a complete answer.
const DONE: &str = "data: [DONE]\n\n";

/// One scripted answer.
#[derive(Clone, Debug)]
pub enum Reply {
    /// Streams these chunk objects as `data:` events, then `data: [DONE]`, then closes.
    Stream(Vec<Value>),
    /// Streams these chunk objects, then keeps the connection open until the client closes it.
    Hold(Vec<Value>),
    /// Streams these chunk objects, then every chunk given to [`OpenAiServer::feed`], until the client closes
    /// or [`OpenAiServer::finish_feed`] ends the answer.
    Feed(Vec<Value>),
    /// Answers with this HTTP status and JSON body (no stream).
    Status(u16, Value),
    /// Answers with this response as it is (a status with headers such as `retry-after`, for instance).
    Response(Response),
}

/// The running server on a free loopback port; stops when dropped.
pub struct OpenAiServer {
    server: LoopbackServer,
    base_url: String,
}

impl OpenAiServer {
    /// Starts a server that answers the n-th chat request with `replies[n]` (the last one repeats).
    pub async fn start(replies: Vec<Reply>) -> Result<Self, ServerError> {
        let replies = Mutex::new(VecDeque::from(replies));
        let server = LoopbackServer::start(move |request, _| answer(request, &replies)).await?;
        let base_url = format!("{}/v1", server.origin());
        Ok(Self { server, base_url })
    }

    /// `http://127.0.0.1:<port>/v1`, the base URL a client appends `/chat/completions` to.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The chat requests received so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.server.requests().into_iter().filter(is_chat).collect()
    }

    /// Sends one more chunk object down the open stream of a [`Reply::Feed`] (queued until that stream starts).
    pub fn feed(&self, chunk: Value) {
        self.server.feed(data_event(&chunk));
    }

    /// Ends the open stream of a [`Reply::Feed`] as a complete answer, after the chunks fed before: a last
    /// chunk with `finish_reason: "stop"`, then `data: [DONE]`, then the connection closes, as at the end of a
    /// [`Reply::Stream`]. Queued like [`OpenAiServer::feed`].
    pub fn finish_feed(&self) {
        self.server
            .finish_feed(format!("{}{DONE}", data_event(&chunks::stop_chunk())));
    }

    /// When the last complete answer ([`Reply::Stream`], or a [`Reply::Feed`] ended by
    /// [`OpenAiServer::finish_feed`]) was written to the end, `[DONE]` included.
    pub fn last_byte_at(&self) -> Option<Instant> {
        self.server.last_byte_at()
    }

    /// Resolves once a client closed an answer before its end, a held-open one for instance (at once if one
    /// already did).
    pub async fn client_closed(&self) {
        self.nth_client_close(1).await;
    }

    /// Resolves once clients closed `n` answers before their end; returns when the n-th was closed, as the
    /// server saw it.
    pub async fn nth_client_close(&self, n: usize) -> Instant {
        self.server.wait_closed(n).await
    }
}

fn is_chat(request: &Request) -> bool {
    request.path.contains("/chat/completions")
}

/// The response to `request`: the next scripted reply for a chat request, a 404 for anything else.
fn answer(request: &Request, replies: &Mutex<VecDeque<Reply>>) -> Response {
    if !is_chat(request) {
        return Response::json(404, &json!({"error": {"message": "not found"}}));
    }
    let reply = {
        let mut replies = replies.lock().unwrap_or_else(PoisonError::into_inner);
        if replies.len() > 1 {
            replies.pop_front()
        } else {
            replies.front().cloned()
        }
    };
    match reply {
        None => Response::json(
            500,
            &json!({"error": {"message": "no scripted reply", "type": "test_server"}}),
        ),
        Some(Reply::Status(status, body)) => Response::json(status, &body),
        Some(Reply::Response(response)) => response,
        Some(Reply::Stream(chunks)) => Response::stream(event_stream(&chunks).write(DONE)),
        Some(Reply::Hold(chunks)) => {
            Response::stream(event_stream(&chunks).ending(StreamEnd::Hold))
        }
        Some(Reply::Feed(chunks)) => {
            Response::stream(event_stream(&chunks).ending(StreamEnd::Feed))
        }
    }
}

/// An event stream of `chunks`, one `data:` event a write and nothing after them: the body of the replies, for a
/// [`Reply::Response`] that paces or ends it otherwise.
pub fn event_stream(chunks: &[Value]) -> Stream {
    chunks.iter().fold(Stream::sse(), |stream, chunk| {
        stream.write(data_event(chunk))
    })
}

fn data_event(chunk: &Value) -> String {
    format!("data: {chunk}\n\n")
}
