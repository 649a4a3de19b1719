//! One HTTP/1.1 request as a loopback server received it, and reading it off the connection (the head, then a
//! `content-length` or chunked body).

use serde_json::Value;
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// One request as the server saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// `GET`, `POST`, …
    pub method: String,
    /// The request target: path and query.
    pub path: String,
    /// Every header, names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON; its text when it is not JSON; null when it is empty.
    pub body: Value,
}

impl Request {
    /// The value of the first header called `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Reads one request from `socket`; `buffer` carries bytes the client sent beyond the previous request.
/// `None` when the client closed the connection first or sent something that is not HTTP/1.1.
pub(crate) async fn read_request(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Request> {
    let head_end = read_until(socket, buffer, b"\r\n\r\n").await?;
    let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
    buffer.drain(..head_end + 4);
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split(' ');
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let mut request = Request {
        method,
        path,
        headers,
        body: Value::Null,
    };
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|value| value.eq_ignore_ascii_case("chunked"));
    let body = if chunked {
        read_chunked_body(socket, buffer).await?
    } else {
        let length = request
            .header("content-length")
            .and_then(|value| value.parse().ok())
            .unwrap_or(0);
        while buffer.len() < length {
            if !read_more(socket, buffer).await {
                return None;
            }
        }
        buffer.drain(..length).collect()
    };
    if !body.is_empty() {
        request.body = serde_json::from_slice(&body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()));
    }
    Some(request)
}

/// Reads a chunked body up to and including its last (empty) chunk.
async fn read_chunked_body(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = read_until(socket, buffer, b"\r\n").await?;
        let size_line = String::from_utf8_lossy(&buffer[..line_end]).into_owned();
        let size = usize::from_str_radix(size_line.split(';').next()?.trim(), 16).ok()?;
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

/// Reads until `buffer` holds `needle`; returns where it starts. `None` if the client closed first.
async fn read_until(socket: &mut TcpStream, buffer: &mut Vec<u8>, needle: &[u8]) -> Option<usize> {
    loop {
        if let Some(position) = find(buffer, needle) {
            return Some(position);
        }
        if !read_more(socket, buffer).await {
            return None;
        }
    }
}

/// Appends what the client sent next; `false` once it closed the connection or the read failed.
async fn read_more(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> bool {
    let mut chunk = [0_u8; 8192];
    match socket.read(&mut chunk).await {
        Ok(0) | Err(_) => false,
        Ok(read) => {
            buffer.extend_from_slice(&chunk[..read]);
            true
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}
