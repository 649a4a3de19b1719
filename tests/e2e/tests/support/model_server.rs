//! A loopback OpenAI-compatible model server for the end-to-end tests: real HTTP/1.1 and server-sent events,
//! scripted per request. The n-th request to `/chat/completions` gets the n-th [`Reply`] (the last one repeats,
//! so a client that retries sees the same answer again). Every request body is recorded, and a client that
//! closes a held-open stream is reported through [`ModelServer::client_closed`]. A fed stream ([`Reply::Feed`])
//! gets its chunks from [`ModelServer::feed`] and ends with [`ModelServer::finish_feed`].

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use pi_desktop_e2e::{AppUnderTest, LaunchOptions};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;

/// One scripted answer.
#[derive(Clone, Debug)]
pub(crate) enum Reply {
    /// Streams these chunk objects as `data:` events, then `data: [DONE]`, then closes.
    Stream(Vec<Value>),
    /// Streams these chunk objects, then keeps the connection open until the client closes it.
    Hold(Vec<Value>),
    /// Streams these chunk objects, then every chunk given to [`ModelServer::feed`], until the client closes
    /// or [`ModelServer::finish_feed`] ends the stream.
    Feed(Vec<Value>),
    /// Answers with this HTTP status and JSON body (no stream).
    Status(u16, Value),
}

/// The running server on a random loopback port; stops when dropped.
pub(crate) struct ModelServer {
    base_url: String,
    requests: Arc<Mutex<Vec<Value>>>,
    closed_by_client: Arc<Notify>,
    last_byte_at: Arc<Mutex<Option<Instant>>>,
    feed: mpsc::UnboundedSender<Fed>,
    task: JoinHandle<()>,
}

/// What the test gives the open stream of a [`Reply::Feed`].
#[derive(Debug)]
enum Fed {
    /// One more chunk object.
    Chunk(Value),
    /// The end: a last chunk with `finish_reason: "stop"`, `data: [DONE]`, and the connection closed.
    Finish,
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Shared {
    requests: Arc<Mutex<Vec<Value>>>,
    replies: Mutex<VecDeque<Reply>>,
    closed_by_client: Arc<Notify>,
    last_byte_at: Arc<Mutex<Option<Instant>>>,
    /// Chunks for the stream of a [`Reply::Feed`] (one such stream at a time).
    fed: tokio::sync::Mutex<mpsc::UnboundedReceiver<Fed>>,
}

impl ModelServer {
    /// Starts a server that answers the n-th request with `replies[n]` (the last one repeats).
    pub(crate) async fn start(replies: Vec<Reply>) -> ModelServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let closed_by_client = Arc::new(Notify::new());
        let last_byte_at = Arc::new(Mutex::new(None));
        let (feed, fed) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            requests: Arc::clone(&requests),
            replies: Mutex::new(VecDeque::from(replies)),
            closed_by_client: Arc::clone(&closed_by_client),
            last_byte_at: Arc::clone(&last_byte_at),
            fed: tokio::sync::Mutex::new(fed),
        });
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let shared = Arc::clone(&shared);
                tokio::spawn(async move {
                    let _ = serve(socket, &shared).await;
                });
            }
        });
        ModelServer {
            base_url,
            requests,
            closed_by_client,
            last_byte_at,
            feed,
            task,
        }
    }

    /// `http://127.0.0.1:PORT/v1`, for `PI_BASE_URL`.
    pub(crate) fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The environment that points the app at this server.
    pub(crate) fn app_envs(&self) -> Vec<(String, String)> {
        [
            ("PI_API", "openai-completions"),
            ("PI_BASE_URL", self.base_url()),
            ("PI_MODEL", "e2e-model"),
            ("PI_API_KEY", "sk-e2e-test"),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect()
    }

    /// Launches the app pointed at this server (a home of its own, no arguments).
    pub(crate) async fn launch_app(&self) -> AppUnderTest {
        AppUnderTest::launch(LaunchOptions {
            envs: self.app_envs(),
            args: Vec::new(),
        })
        .await
        .unwrap()
    }

    /// The JSON bodies of the chat requests received so far.
    pub(crate) fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }

    /// Sends one more chunk down the open stream of a [`Reply::Feed`] (queued until that stream starts).
    pub(crate) fn feed(&self, chunk: Value) {
        self.feed.send(Fed::Chunk(chunk)).unwrap();
    }

    /// Ends the open stream of a [`Reply::Feed`] as a complete answer (after the chunks fed before): a last chunk
    /// with `finish_reason: "stop"`, then `data: [DONE]`, then the server closes the connection, as at the end
    /// of a [`Reply::Stream`]. Queued until that stream starts, like [`ModelServer::feed`].
    pub(crate) fn finish_feed(&self) {
        self.feed.send(Fed::Finish).unwrap();
    }

    /// When the last complete stream ([`Reply::Stream`], or a [`Reply::Feed`] ended by
    /// [`ModelServer::finish_feed`]) was written to the end, `[DONE]` included.
    pub(crate) fn last_byte_at(&self) -> Option<Instant> {
        *self.last_byte_at.lock().unwrap()
    }

    /// Resolves once a client closed a held-open stream (also if it closed before this is called).
    pub(crate) async fn client_closed(&self) {
        self.closed_by_client.notified().await;
    }
}

async fn serve(mut socket: TcpStream, shared: &Shared) -> std::io::Result<()> {
    let Some((request_line, body)) = read_request(&mut socket).await? else {
        return Ok(());
    };
    if !request_line.contains("/chat/completions") {
        return write_status(
            &mut socket,
            404,
            &json!({"error": {"message": "not found"}}),
        )
        .await;
    }
    shared.requests.lock().unwrap().push(body);
    let reply = {
        let mut replies = shared.replies.lock().unwrap();
        if replies.len() > 1 {
            replies.pop_front()
        } else {
            replies.front().cloned()
        }
    };
    let (chunks, hold_open, fed) = match reply {
        None => {
            let error = json!({"error": {"message": "no scripted reply", "type": "test_server"}});
            return write_status(&mut socket, 500, &error).await;
        }
        Some(Reply::Status(status, error)) => {
            return write_status(&mut socket, status, &error).await;
        }
        Some(Reply::Stream(chunks)) => (chunks, false, false),
        Some(Reply::Hold(chunks)) => (chunks, true, false),
        Some(Reply::Feed(chunks)) => (chunks, true, true),
    };
    socket
        .write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
              Connection: close\r\n\r\n",
        )
        .await?;
    for chunk in chunks {
        socket
            .write_all(format!("data: {chunk}\n\n").as_bytes())
            .await?;
        socket.flush().await?;
    }
    if fed {
        let mut fed = shared.fed.lock().await;
        let mut rest = [0_u8; 1024];
        loop {
            tokio::select! {
                read = socket.read(&mut rest) => {
                    if !matches!(read, Ok(read) if read > 0) {
                        break;
                    }
                }
                Some(item) = fed.recv() => {
                    let chunk = match item {
                        Fed::Chunk(chunk) => chunk,
                        Fed::Finish => {
                            drop(fed);
                            return finish_stream(&mut socket, shared).await;
                        }
                    };
                    let sent = socket.write_all(format!("data: {chunk}\n\n").as_bytes()).await;
                    if sent.is_err() || socket.flush().await.is_err() {
                        break;
                    }
                }
            }
        }
        shared.closed_by_client.notify_one();
        return Ok(());
    }
    if hold_open {
        // The client sends nothing more: a read returns 0 (or fails) once it closed the connection.
        let mut rest = [0_u8; 1024];
        while matches!(socket.read(&mut rest).await, Ok(read) if read > 0) {}
        shared.closed_by_client.notify_one();
        return Ok(());
    }
    socket.write_all(b"data: [DONE]\n\n").await?;
    socket.flush().await?;
    *shared.last_byte_at.lock().unwrap() = Some(Instant::now());
    socket.shutdown().await
}

/// Ends a fed stream as [`ModelServer::finish_feed`] says: the stop chunk, `[DONE]`, and the connection closed.
async fn finish_stream(socket: &mut TcpStream, shared: &Shared) -> std::io::Result<()> {
    let stop = chunk(json!({}), Some("stop"));
    socket
        .write_all(format!("data: {stop}\n\ndata: [DONE]\n\n").as_bytes())
        .await?;
    socket.flush().await?;
    *shared.last_byte_at.lock().unwrap() = Some(Instant::now());
    socket.shutdown().await
}

/// Reads one request; returns its request line and JSON body, or `None` if the client closed first.
async fn read_request(socket: &mut TcpStream) -> std::io::Result<Option<(String, Value)>> {
    let mut buffer = Vec::new();
    let head_end = loop {
        let mut chunk = [0_u8; 4096];
        let read = socket.read(&mut chunk).await?;
        if read == 0 {
            return Ok(None);
        }
        buffer.extend_from_slice(&chunk[..read]);
        if let Some(position) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break position + 4;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default().to_owned();
    let length = lines
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = buffer[head_end..].to_vec();
    while body.len() < length {
        let mut chunk = [0_u8; 4096];
        let read = socket.read(&mut chunk).await?;
        if read == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..read]);
    }
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    Ok(Some((request_line, body)))
}

async fn write_status(socket: &mut TcpStream, status: u16, body: &Value) -> std::io::Result<()> {
    let body = body.to_string();
    let reply = format!(
        "HTTP/1.1 {status} Scripted\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    socket.write_all(reply.as_bytes()).await?;
    socket.shutdown().await
}

fn chunk(delta: Value, finish_reason: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-e2e",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "e2e-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    })
}

/// A response that calls one tool with `arguments` (a JSON string streamed in one piece).
pub(crate) fn tool_call_chunks(call_id: &str, name: &str, arguments: &str) -> Vec<Value> {
    vec![
        chunk(
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
            ]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
    ]
}

/// The opening chunks of a text response, without a finish reason (for [`Reply::Hold`]).
pub(crate) fn unfinished_text_chunks(parts: &[&str]) -> Vec<Value> {
    let mut chunks = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    chunks.extend(
        parts
            .iter()
            .map(|part| chunk(json!({"content": part}), None)),
    );
    chunks
}

/// One text delta, for [`ModelServer::feed`].
pub(crate) fn text_delta(text: &str) -> Value {
    chunk(json!({"content": text}), None)
}

/// A complete text response streaming `parts`.
pub(crate) fn text_chunks(parts: &[&str]) -> Vec<Value> {
    let mut chunks = unfinished_text_chunks(parts);
    chunks.push(chunk(json!({}), Some("stop")));
    chunks
}
