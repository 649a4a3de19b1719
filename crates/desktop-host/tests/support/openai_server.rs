//! A small OpenAI-compatible model server on loopback: real HTTP/1.1 and server-sent events, scripted per
//! request. Each request to `/v1/chat/completions` takes the next scripted response (a list of chunk objects),
//! streams them as `data:` events followed by `data: [DONE]`, and closes the connection. Requests are recorded
//! so tests can assert on what the client sent.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// One request as received.
#[derive(Clone, Debug)]
pub(crate) struct RecordedRequest {
    /// Method and path, e.g. `POST /v1/chat/completions`.
    pub(crate) request_line: String,
    /// Header lines, lowercase names.
    pub(crate) headers: Vec<(String, String)>,
    /// The JSON body.
    pub(crate) body: Value,
}

/// The running server; stops when dropped.
pub(crate) struct OpenAiServer {
    /// `http://127.0.0.1:PORT/v1`.
    pub(crate) base_url: String,
    requests: Arc<Mutex<Vec<RecordedRequest>>>,
    closed_by_client: Arc<tokio::sync::Notify>,
    task: JoinHandle<()>,
}

/// One scripted answer.
struct Scripted {
    chunks: Vec<Value>,
    /// Keep the stream open after the chunks (no `[DONE]`) until the client closes the connection.
    hold_open: bool,
}

impl Drop for OpenAiServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl OpenAiServer {
    /// Starts a server that answers the n-th request with `responses[n]` (a list of chunk objects).
    pub(crate) async fn start(responses: Vec<Vec<Value>>) -> OpenAiServer {
        let scripted = responses
            .into_iter()
            .map(|chunks| Scripted {
                chunks,
                hold_open: false,
            })
            .collect();
        OpenAiServer::start_scripted(scripted).await
    }

    /// Starts a server whose only answer streams `chunks` and then stays open until the client hangs up.
    pub(crate) async fn start_holding(chunks: Vec<Value>) -> OpenAiServer {
        OpenAiServer::start_scripted(vec![Scripted {
            chunks,
            hold_open: true,
        }])
        .await
    }

    /// Resolves once a client closed a held-open stream.
    pub(crate) async fn client_closed(&self) {
        self.closed_by_client.notified().await;
    }

    async fn start_scripted(responses: Vec<Scripted>) -> OpenAiServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let queue = Arc::new(Mutex::new(VecDeque::from(responses)));
        let recorded = Arc::clone(&requests);
        let closed_by_client = Arc::new(tokio::sync::Notify::new());
        let closed = Arc::clone(&closed_by_client);
        let task = tokio::spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let recorded = Arc::clone(&recorded);
                let queue = Arc::clone(&queue);
                let closed = Arc::clone(&closed);
                tokio::spawn(async move {
                    let _ = serve(socket, &recorded, &queue, &closed).await;
                });
            }
        });
        OpenAiServer {
            base_url,
            requests,
            closed_by_client,
            task,
        }
    }

    /// The requests received so far.
    pub(crate) fn requests(&self) -> Vec<RecordedRequest> {
        self.requests.lock().unwrap().clone()
    }
}

async fn serve(
    mut socket: TcpStream,
    recorded: &Mutex<Vec<RecordedRequest>>,
    queue: &Mutex<VecDeque<Scripted>>,
    closed: &tokio::sync::Notify,
) -> std::io::Result<()> {
    let mut buffer = Vec::new();
    let head_end = loop {
        let mut chunk = [0_u8; 4096];
        let read = socket.read(&mut chunk).await?;
        if read == 0 {
            return Ok(());
        }
        buffer.extend_from_slice(&chunk[..read]);
        if let Some(position) = buffer.windows(4).position(|window| window == b"\r\n\r\n") {
            break position + 4;
        }
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default().to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_lowercase(), value.trim().to_owned()))
        .collect();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.clone())
    };
    let mut body = buffer[head_end..].to_vec();
    if let Some(length) = header("content-length").and_then(|value| value.parse::<usize>().ok()) {
        while body.len() < length {
            let mut chunk = [0_u8; 4096];
            let read = socket.read(&mut chunk).await?;
            if read == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..read]);
        }
    } else if header("transfer-encoding").is_some_and(|value| value.contains("chunked")) {
        while !body.ends_with(b"0\r\n\r\n") {
            let mut chunk = [0_u8; 4096];
            let read = socket.read(&mut chunk).await?;
            if read == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..read]);
        }
        body = dechunk(&body);
    }
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    recorded.lock().unwrap().push(RecordedRequest {
        request_line: request_line.clone(),
        headers,
        body,
    });

    let response = queue.lock().unwrap().pop_front();
    let Some(Scripted { chunks, hold_open }) =
        response.filter(|_| request_line.contains("/chat/completions"))
    else {
        let error =
            json!({"error": {"message": "no scripted response left", "type": "test_server"}})
                .to_string();
        let reply = format!(
            "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
             Connection: close\r\n\r\n{error}",
            error.len()
        );
        socket.write_all(reply.as_bytes()).await?;
        return socket.shutdown().await;
    };
    socket
        .write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
        )
        .await?;
    for chunk in chunks {
        socket
            .write_all(format!("data: {chunk}\n\n").as_bytes())
            .await?;
        socket.flush().await?;
    }
    if hold_open {
        // The client sends nothing more; a read returns 0 (or fails) once it closed the connection.
        let mut rest = [0_u8; 1024];
        while matches!(socket.read(&mut rest).await, Ok(read) if read > 0) {}
        closed.notify_one();
        return Ok(());
    }
    socket.write_all(b"data: [DONE]\n\n").await?;
    socket.shutdown().await
}

fn dechunk(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = raw;
    while let Some(line_end) = rest.windows(2).position(|window| window == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..line_end]).trim(), 16)
            .unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = line_end + 2;
        out.extend_from_slice(&rest[start..(start + size).min(rest.len())]);
        rest = &rest[(start + size + 2).min(rest.len())..];
    }
    out
}

fn chunk(delta: Value, finish_reason: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    })
}

/// A response that calls one tool, its arguments streamed in `argument_parts`.
pub(crate) fn tool_call_response(call_id: &str, name: &str, argument_parts: &[&str]) -> Vec<Value> {
    let mut chunks = vec![chunk(
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
        ]}),
        None,
    )];
    for part in argument_parts {
        chunks.push(chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": part}}]}),
            None,
        ));
    }
    chunks.push(chunk(json!({}), Some("tool_calls")));
    chunks
}

/// The opening chunks of a text response that never finishes (for `start_holding`).
pub(crate) fn unfinished_text_response(parts: &[&str]) -> Vec<Value> {
    let mut chunks = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    for part in parts {
        chunks.push(chunk(json!({"content": part}), None));
    }
    chunks
}

/// A response that streams `parts` as text.
pub(crate) fn text_response(parts: &[&str]) -> Vec<Value> {
    let mut chunks = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    for part in parts {
        chunks.push(chunk(json!({"content": part}), None));
    }
    chunks.push(chunk(json!({}), Some("stop")));
    chunks
}
