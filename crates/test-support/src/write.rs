//! Writing a [`Response`] to the connection: the status line and headers, then a complete body, or a stream's
//! segments piece by piece and its end (close, reset, hold open, or fed until finished).

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::pacing::pieces;
use crate::response::{Body, Response, Stream, StreamEnd};
use crate::server::{Fed, Shared};

/// What the connection does after a response.
pub(crate) enum After {
    /// Reads the client's next request.
    KeepAlive,
    /// Is closed (or was closed by the client).
    Close,
}

/// Writes `response`; notes on `shared` when the client closed the connection early and when a stream ended.
pub(crate) async fn write_response(
    socket: &mut TcpStream,
    response: &Response,
    shared: &Shared,
) -> After {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\n",
        response.status,
        reason(response.status)
    );
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    match &response.body {
        Body::Complete {
            content_type,
            bytes,
        } => {
            head.push_str(&format!(
                "content-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
                bytes.len()
            ));
            let mut message = head.into_bytes();
            message.extend_from_slice(bytes);
            if socket.write_all(&message).await.is_err() || socket.flush().await.is_err() {
                return After::Close;
            }
            After::KeepAlive
        }
        Body::Stream(stream) => {
            head.push_str(&format!(
                "content-type: {}\r\ncache-control: no-cache\r\n",
                stream.content_type
            ));
            head.push_str(if stream.chunked {
                "transfer-encoding: chunked\r\n\r\n"
            } else {
                "connection: close\r\n\r\n"
            });
            if socket.write_all(head.as_bytes()).await.is_err() {
                shared.note_client_closed();
            } else {
                write_stream(socket, stream, shared).await;
            }
            After::Close
        }
    }
}

/// Writes the segments of `stream` (after its head), then ends it.
async fn write_stream(socket: &mut TcpStream, stream: &Stream, shared: &Shared) {
    let mut budget = match stream.end {
        StreamEnd::ResetAfter(bytes) => Some(bytes),
        StreamEnd::Close | StreamEnd::Hold | StreamEnd::Feed => None,
    };
    for segment in &stream.segments {
        let limit = budget.map_or(segment.bytes.len(), |left| left.min(segment.bytes.len()));
        for piece in pieces(&segment.bytes[..limit], &stream.pacing) {
            if write_piece(socket, piece, stream.chunked).await.is_err() {
                shared.note_client_closed();
                return;
            }
            if !stream.pacing.delay.is_zero() {
                tokio::time::sleep(stream.pacing.delay).await;
            }
        }
        if let Some(left) = budget.as_mut() {
            *left -= limit;
            if *left == 0 {
                break;
            }
        }
        if !segment.pause_after.is_zero() {
            tokio::time::sleep(segment.pause_after).await;
        }
    }
    match stream.end {
        StreamEnd::Close => finish(socket, stream.chunked, shared).await,
        StreamEnd::ResetAfter(_) => reset(socket).await,
        StreamEnd::Hold => {
            wait_for_client_close(socket).await;
            shared.note_client_closed();
        }
        StreamEnd::Feed => feed(socket, stream.chunked, shared).await,
    }
}

/// Writes one piece of the body (as one chunk when chunked; nothing when empty, which would end a chunked body).
async fn write_piece(socket: &mut TcpStream, piece: &[u8], chunked: bool) -> std::io::Result<()> {
    if piece.is_empty() {
        return Ok(());
    }
    if chunked {
        let mut framed = format!("{:x}\r\n", piece.len()).into_bytes();
        framed.extend_from_slice(piece);
        framed.extend_from_slice(b"\r\n");
        socket.write_all(&framed).await?;
    } else {
        socket.write_all(piece).await?;
    }
    socket.flush().await
}

/// Ends the body (the last chunk when chunked), notes the instant, and closes the sending side.
async fn finish(socket: &mut TcpStream, chunked: bool, shared: &Shared) {
    if chunked && socket.write_all(b"0\r\n\r\n").await.is_err() {
        shared.note_client_closed();
        return;
    }
    if socket.flush().await.is_err() {
        shared.note_client_closed();
        return;
    }
    shared.note_last_byte();
    let _ = socket.shutdown().await;
}

/// Gives the client time to read what was sent, then makes the close an abortive one (RST instead of FIN).
async fn reset(socket: &TcpStream) {
    tokio::time::sleep(Duration::from_millis(50)).await;
    #[allow(
        deprecated,
        reason = "a zero linger is exactly the abortive close a reset stream asks for"
    )]
    let _ = socket.set_linger(Some(Duration::ZERO));
}

/// Returns once the client closed the connection (a read gives nothing more, or fails).
async fn wait_for_client_close(socket: &mut TcpStream) {
    let mut sink = [0_u8; 1024];
    while matches!(socket.read(&mut sink).await, Ok(read) if read > 0) {}
}

/// Writes what the test feeds until it finishes the body or the client closes the connection.
async fn feed(socket: &mut TcpStream, chunked: bool, shared: &Shared) {
    let mut fed = shared.fed.lock().await;
    let mut sink = [0_u8; 1024];
    loop {
        tokio::select! {
            read = socket.read(&mut sink) => {
                if !matches!(read, Ok(read) if read > 0) {
                    break;
                }
            }
            Some(item) = fed.recv() => match item {
                Fed::Bytes(bytes) => {
                    if write_piece(socket, &bytes, chunked).await.is_err() {
                        break;
                    }
                }
                Fed::Last(bytes) => {
                    drop(fed);
                    if write_piece(socket, &bytes, chunked).await.is_err() {
                        shared.note_client_closed();
                        return;
                    }
                    return finish(socket, chunked, shared).await;
                }
            },
        }
    }
    shared.note_client_closed();
}

/// The reason phrase of the status line.
fn reason(status: u16) -> &'static str {
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
