//! Loopback HTTP server that replays a provider-conformance fixture's `responses` script, one scripted
//! response per request, in order, and records every request it receives.
//!
//! It implements the script format of `tests/data/provider-conformance/README.md` ("Responses"): SSE entries
//! (`event`/`data`, `comment`, `raw`, `pause_ms`), `chunk_bytes` / `delay_ms` write pacing, `split_utf8`,
//! `line_ending`, `chunked` transfer encoding, `reset_after` (TCP RST after N body bytes), and plain bodies
//! with a status, headers and a content type. JSON `data` values are written compactly with keys in file
//! order and non-ASCII kept as UTF-8, exactly like the reference server.
//!
//! Extensions for fault tests (not used by the shared fixtures):
//! * `"stall": true` — after the scripted body, keep the connection open and send nothing until the client
//!   closes it (idle-timeout and abort tests);
//! * the server notes the instant each response connection is closed by the client ([`ReplayServer::closed`]).
//!
//! This file is shared by the integration tests and by `examples/provider-replay.rs` (via `#[path]`), so it
//! depends only on tokio and serde_json.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// Request headers that are recorded (the same subset as the reference server logs).
pub(crate) const LOGGED_HEADERS: [&str; 10] = [
    "authorization",
    "x-api-key",
    "anthropic-version",
    "anthropic-beta",
    "content-type",
    "accept",
    "session_id",
    "x-client-request-id",
    "x-session-affinity",
    "x-session-id",
];

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub(crate) struct RecordedRequest {
    pub(crate) method: String,
    /// Path with query.
    pub(crate) path: String,
    /// The logged subset, names lower-cased, sorted by name.
    pub(crate) headers: BTreeMap<String, String>,
    /// Every header, names lower-cased, in arrival order.
    pub(crate) all_headers: Vec<(String, String)>,
    /// The parsed JSON body, or the raw text when it is not JSON, or null when empty.
    pub(crate) body: Value,
}

impl RecordedRequest {
    /// The trace form `{method, path, headers, body}`.
    pub(crate) fn to_json(&self) -> Value {
        let headers: serde_json::Map<String, Value> = self
            .headers
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        serde_json::json!({
            "method": self.method,
            "path": self.path,
            "headers": headers,
            "body": self.body,
        })
    }
}

#[derive(Default)]
struct Shared {
    requests: Mutex<Vec<RecordedRequest>>,
    closed: Mutex<Vec<Instant>>,
    changed: Notify,
}

impl Shared {
    fn push_request(&self, request: RecordedRequest) -> usize {
        let mut requests = self.requests.lock().unwrap_or_else(PoisonError::into_inner);
        requests.push(request);
        let n = requests.len() - 1;
        drop(requests);
        self.changed.notify_waiters();
        n
    }

    fn push_closed(&self, at: Instant) {
        self.closed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(at);
        self.changed.notify_waiters();
    }
}

/// A running replay server; it stops when dropped.
pub(crate) struct ReplayServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl Drop for ReplayServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Errors of the replay server's own setup (bind failures).
#[derive(Debug)]
pub(crate) struct ServerError(pub(crate) String);

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServerError {}

impl ReplayServer {
    /// Binds 127.0.0.1 on a free port and serves `responses` (a fixture's `responses` array).
    pub(crate) async fn start(responses: Vec<Value>) -> Result<Self, ServerError> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| ServerError(format!("cannot bind the replay server: {e}")))?;
        let addr = listener
            .local_addr()
            .map_err(|e| ServerError(format!("no local address: {e}")))?;
        let shared = Arc::new(Shared::default());
        let script = Arc::new(responses);
        let task = tokio::spawn({
            let shared = Arc::clone(&shared);
            async move {
                loop {
                    let Ok((socket, _)) = listener.accept().await else {
                        continue;
                    };
                    let shared = Arc::clone(&shared);
                    let script = Arc::clone(&script);
                    tokio::spawn(async move {
                        serve_connection(socket, &shared, &script).await;
                    });
                }
            }
        });
        Ok(Self { addr, shared, task })
    }

    /// `http://127.0.0.1:<port>`.
    pub(crate) fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Requests received so far, in arrival order.
    pub(crate) fn requests(&self) -> Vec<RecordedRequest> {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Instants at which a client closed a connection the server was holding open (`stall`) or writing to.
    pub(crate) fn closed(&self) -> Vec<Instant> {
        self.shared
            .closed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits until at least `n` connections were seen closed by the client.
    pub(crate) async fn wait_closed(&self, n: usize) -> Instant {
        loop {
            let notified = self.shared.changed.notified();
            if let Some(at) = self.closed().get(n.saturating_sub(1)) {
                return *at;
            }
            notified.await;
        }
    }

    /// Waits until at least `n` requests arrived.
    pub(crate) async fn wait_requests(&self, n: usize) {
        loop {
            let notified = self.shared.changed.notified();
            if self.requests().len() >= n {
                return;
            }
            notified.await;
        }
    }
}

/// What the connection does after a response.
enum After {
    KeepAlive,
    Close,
}

async fn serve_connection(mut socket: TcpStream, shared: &Shared, script: &[Value]) {
    let mut buffer = Vec::new();
    loop {
        let Some(request) = read_request(&mut socket, &mut buffer).await else {
            return;
        };
        let index = shared.push_request(request);
        let after = match script.get(index) {
            Some(response) => respond(&mut socket, response, shared).await,
            None => {
                let body = serde_json::json!({"error": {"message": format!(
                    "replay server: no response scripted for request {}", index + 1)}})
                .to_string();
                write_plain(
                    &mut socket,
                    500,
                    &BTreeMap::new(),
                    body.as_bytes(),
                    "application/json",
                )
                .await
            }
        };
        if matches!(after, After::Close) {
            return;
        }
    }
}

/// Reads one HTTP/1.1 request (head and content-length or chunked body). `None` at EOF or on garbage.
async fn read_request(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<RecordedRequest> {
    let head_end = loop {
        if let Some(pos) = find(buffer, b"\r\n\r\n") {
            break pos;
        }
        if !read_more(socket, buffer).await {
            return None;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    buffer.drain(..head_end + 4);
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let mut all_headers = Vec::new();
    for line in lines {
        if let Some((name, value)) = line.split_once(':') {
            all_headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let header = |name: &str| {
        all_headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let body_bytes =
        if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
            read_chunked_body(socket, buffer).await?
        } else {
            let length: usize = header("content-length")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            while buffer.len() < length {
                if !read_more(socket, buffer).await {
                    return None;
                }
            }
            buffer.drain(..length).collect()
        };
    let body = if body_bytes.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body_bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body_bytes).into_owned()))
    };
    let headers = all_headers
        .iter()
        .filter(|(k, _)| LOGGED_HEADERS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Some(RecordedRequest {
        method,
        path,
        headers,
        all_headers,
        body,
    })
}

async fn read_chunked_body(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = loop {
            if let Some(pos) = find(buffer, b"\r\n") {
                break pos;
            }
            if !read_more(socket, buffer).await {
                return None;
            }
        };
        let size_text = String::from_utf8_lossy(&buffer[..line_end]).into_owned();
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        buffer.drain(..line_end + 2);
        while buffer.len() < size + 2 {
            if !read_more(socket, buffer).await {
                return None;
            }
        }
        body.extend(buffer.drain(..size));
        buffer.drain(..2);
        if size == 0 {
            return Some(body);
        }
    }
}

async fn read_more(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> bool {
    let mut chunk = [0u8; 8192];
    match socket.read(&mut chunk).await {
        Ok(0) | Err(_) => false,
        Ok(n) => {
            buffer.extend_from_slice(&chunk[..n]);
            true
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn string_map(value: Option<&Value>) -> BTreeMap<String, String> {
    value
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str().map_or_else(|| v.to_string(), str::to_string),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

async fn respond(socket: &mut TcpStream, response: &Value, shared: &Shared) -> After {
    let status = response
        .get("status")
        .and_then(Value::as_u64)
        .unwrap_or(200);
    let headers = string_map(response.get("headers"));
    if status != 200 || response.get("body").is_some() {
        let body = response.get("body").and_then(Value::as_str).unwrap_or("");
        let content_type = response
            .get("content_type")
            .and_then(Value::as_str)
            .unwrap_or("application/json");
        return write_plain(socket, status, &headers, body.as_bytes(), content_type).await;
    }
    let eol = response
        .get("line_ending")
        .and_then(Value::as_str)
        .unwrap_or("\n");
    let entries = response
        .get("events")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let segments = sse_segments(entries, eol);
    let chunked = response
        .get("chunked")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let content_type = response
        .get("content_type")
        .and_then(Value::as_str)
        .unwrap_or("text/event-stream");
    let mut head = String::from("HTTP/1.1 200 OK\r\n");
    for (k, v) in &headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "content-type: {content_type}\r\ncache-control: no-cache\r\n"
    ));
    head.push_str(if chunked {
        "transfer-encoding: chunked\r\n\r\n"
    } else {
        "connection: close\r\n\r\n"
    });
    if socket.write_all(head.as_bytes()).await.is_err() {
        shared.push_closed(Instant::now());
        return After::Close;
    }
    let step = response
        .get("chunk_bytes")
        .and_then(Value::as_u64)
        .unwrap_or(7)
        .max(1) as usize;
    let delay = Duration::from_secs_f64(
        response
            .get("delay_ms")
            .and_then(Value::as_f64)
            .unwrap_or(1.0)
            / 1000.0,
    );
    let split_utf8 = response
        .get("split_utf8")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let reset_after = response
        .get("reset_after")
        .and_then(Value::as_u64)
        .map(|n| n as usize);
    let stall = response
        .get("stall")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut budget = reset_after;
    for (payload, pause) in &segments {
        let limit = budget.map_or(payload.len(), |b| b.min(payload.len()));
        for piece in pieces(&payload[..limit], step, split_utf8) {
            let written = if chunked {
                let mut framed = format!("{:x}\r\n", piece.len()).into_bytes();
                framed.extend_from_slice(piece);
                framed.extend_from_slice(b"\r\n");
                socket.write_all(&framed).await
            } else {
                socket.write_all(piece).await
            };
            if written.is_err() || socket.flush().await.is_err() {
                shared.push_closed(Instant::now());
                return After::Close;
            }
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
        }
        if let Some(b) = budget.as_mut() {
            *b -= limit;
            if *b == 0 {
                break;
            }
        }
        if !pause.is_zero() {
            tokio::time::sleep(*pause).await;
        }
    }
    if reset_after.is_some() {
        // Give the client time to read what was sent, then abort with RST (linger 0) instead of FIN.
        tokio::time::sleep(Duration::from_millis(50)).await;
        #[allow(
            deprecated,
            reason = "set_linger(0) is exactly the abortive close this fixture asks for"
        )]
        let _ = socket.set_linger(Some(Duration::ZERO));
        return After::Close;
    }
    if stall {
        // Hold the connection until the client gives up; note when it does.
        let mut sink = [0u8; 1024];
        loop {
            match socket.read(&mut sink).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        shared.push_closed(Instant::now());
        return After::Close;
    }
    if chunked {
        let _ = socket.write_all(b"0\r\n\r\n").await;
    }
    let _ = socket.flush().await;
    After::Close
}

async fn write_plain(
    socket: &mut TcpStream,
    status: u64,
    headers: &BTreeMap<String, String>,
    body: &[u8],
    content_type: &str,
) -> After {
    let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "content-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
        body.len()
    ));
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    if socket.write_all(&bytes).await.is_err() || socket.flush().await.is_err() {
        return After::Close;
    }
    After::KeepAlive
}

fn reason(status: u64) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

/// The SSE body as `(bytes, pause after)` segments, split at `pause_ms` entries.
pub(crate) fn sse_segments(entries: &[Value], eol: &str) -> Vec<(Vec<u8>, Duration)> {
    let mut segments = Vec::new();
    let mut current = String::new();
    for entry in entries {
        if let Some(ms) = entry.get("pause_ms").and_then(Value::as_f64) {
            segments.push((
                std::mem::take(&mut current).into_bytes(),
                Duration::from_secs_f64(ms / 1000.0),
            ));
        } else if let Some(raw) = entry.get("raw").and_then(Value::as_str) {
            current.push_str(raw);
        } else if let Some(comment) = entry.get("comment") {
            let text = comment
                .as_str()
                .map_or_else(|| comment.to_string(), str::to_string);
            current.push_str(&format!(": {text}{eol}{eol}"));
        } else {
            let data = entry.get("data").unwrap_or(&Value::Null);
            // serde_json (with preserve_order) writes compactly, keeps key order and raw UTF-8.
            let text = data
                .as_str()
                .map_or_else(|| data.to_string(), str::to_string);
            if let Some(event) = entry
                .get("event")
                .and_then(Value::as_str)
                .filter(|e| !e.is_empty())
            {
                current.push_str(&format!("event: {event}{eol}"));
            }
            current.push_str(&format!("data: {text}{eol}{eol}"));
        }
    }
    segments.push((current.into_bytes(), Duration::ZERO));
    segments
}

/// Offsets inside multi-byte UTF-8 characters; the n-th such character is cut after its
/// `(n mod (len - 1)) + 1`-th byte.
fn utf8_cuts(payload: &[u8]) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut n = 0;
    let mut i = 0;
    while i < payload.len() {
        let b = payload[i];
        let len = if b < 0x80 {
            1
        } else if b >> 5 == 0b110 {
            2
        } else if b >> 4 == 0b1110 {
            3
        } else if b >> 3 == 0b11110 {
            4
        } else {
            1
        };
        if len > 1 {
            cuts.push(i + (n % (len - 1)) + 1);
            n += 1;
        }
        i += len;
    }
    cuts
}

/// Write boundaries: every `step` bytes, plus the UTF-8 cuts when asked.
pub(crate) fn pieces(payload: &[u8], step: usize, split_utf8: bool) -> Vec<&[u8]> {
    let mut bounds: Vec<usize> = (step..payload.len()).step_by(step).collect();
    if split_utf8 {
        bounds.extend(utf8_cuts(payload));
    }
    bounds.retain(|b| *b > 0 && *b < payload.len());
    bounds.sort_unstable();
    bounds.dedup();
    let mut edges = vec![0];
    edges.extend(bounds);
    edges.push(payload.len());
    edges
        .windows(2)
        .map(|w| &payload[w[0]..w[1]])
        .filter(|p| !p.is_empty())
        .collect()
}
