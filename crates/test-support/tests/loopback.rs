//! The loopback server as a client sees it on the wire: requests recorded, complete bodies on a kept-alive
//! connection, streams closed, chunked, held open, fed and reset, and the OpenAI script on top.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed step fails the test"
)]

use std::time::Duration;

use pi_test_support::openai::{OpenAiServer, Reply, text_chunks, text_delta};
use pi_test_support::{LoopbackServer, Pacing, Response, Stream, StreamEnd};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Connects to the server behind `url` (`http://127.0.0.1:<port>`, maybe with a path).
async fn connect(url: &str) -> TcpStream {
    let address = url.trim_start_matches("http://").split('/').next().unwrap();
    TcpStream::connect(address).await.unwrap()
}

fn post(path: &str, body: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// Everything the server sends until it closes the connection (or resets it).
async fn read_to_end(socket: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let mut chunk = [0_u8; 4096];
    while let Ok(read) = socket.read(&mut chunk).await {
        if read == 0 {
            break;
        }
        received.extend_from_slice(&chunk[..read]);
    }
    String::from_utf8_lossy(&received).into_owned()
}

fn body_of(response: &str) -> &str {
    response.split_once("\r\n\r\n").unwrap().1
}

/// A server answering with `stream`, and all it sent for one request.
async fn stream_once(stream: Stream) -> (LoopbackServer, String) {
    let server = LoopbackServer::start(move |_, _| Response::stream(stream.clone()))
        .await
        .unwrap();
    let mut socket = connect(&server.origin()).await;
    socket.write_all(post("/s", "{}").as_bytes()).await.unwrap();
    let received = read_to_end(&mut socket).await;
    (server, received)
}

#[tokio::test]
async fn complete_bodies_keep_the_connection_for_the_next_request() {
    let server = LoopbackServer::start(|request, index| {
        Response::json(200, &json!({"index": index, "path": request.path}))
            .header("x-scripted", "yes")
    })
    .await
    .unwrap();
    let mut socket = connect(&server.origin()).await;
    let both = format!("{}{}", post("/a", r#"{"n":1}"#), post("/b?q=1", "not json"));
    socket.write_all(both.as_bytes()).await.unwrap();
    let mut received = String::new();
    let mut chunk = [0_u8; 4096];
    while received.matches(r#""path""#).count() < 2 {
        let read = socket.read(&mut chunk).await.unwrap();
        assert!(read > 0, "closed early: {received}");
        received.push_str(std::str::from_utf8(&chunk[..read]).unwrap());
    }
    assert!(
        received.starts_with("HTTP/1.1 200 OK\r\nx-scripted: yes\r\n"),
        "{received}"
    );
    assert!(
        received.contains(r#"{"index":1,"path":"/b?q=1"}"#),
        "{received}"
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].body, json!({"n": 1}));
    assert_eq!(requests[0].header("content-type"), Some("application/json"));
    assert_eq!(requests[1].body, json!("not json"));
}

#[tokio::test]
async fn a_chunked_request_body_is_read_whole() {
    let server = LoopbackServer::start(|_, _| Response::json(204, &json!(null)))
        .await
        .unwrap();
    let mut socket = connect(&server.origin()).await;
    let request = "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3\r\n:2}\r\n0\r\n\r\n";
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut chunk = [0_u8; 1024];
    assert!(socket.read(&mut chunk).await.unwrap() > 0);
    assert_eq!(server.requests()[0].body, json!({"a": 2}));
}

#[tokio::test]
async fn a_paced_chunked_stream_arrives_whole_and_notes_its_last_byte() {
    let stream = Stream::sse()
        .write("data: one\n\n")
        .pause(Duration::from_millis(5))
        .write("data: zwei ü\n\n")
        .paced(Pacing {
            write_size: Some(3),
            delay: Duration::ZERO,
            split_utf8: true,
        })
        .chunked();
    let (server, received) = stream_once(stream).await;
    assert!(
        received.contains("transfer-encoding: chunked\r\n"),
        "{received}"
    );
    let body = body_of(&received);
    assert!(body.starts_with("3\r\ndat\r\n"), "{body}");
    assert!(body.ends_with("0\r\n\r\n"), "{body}");
    assert!(server.last_byte_at().is_some());
    assert!(server.closed().is_empty());
}

#[tokio::test]
async fn a_reset_stream_sends_only_the_bytes_it_may() {
    let stream = Stream::sse()
        .write("data: first\n\ndata: second\n\n")
        .ending(StreamEnd::ResetAfter(13));
    let (server, received) = stream_once(stream).await;
    assert_eq!(body_of(&received), "data: first\n\n");
    assert!(server.last_byte_at().is_none());
}

#[tokio::test]
async fn a_held_stream_stays_open_until_the_client_closes_it() {
    let server = LoopbackServer::start(|_, _| {
        Response::stream(Stream::sse().write("data: x\n\n").ending(StreamEnd::Hold))
    })
    .await
    .unwrap();
    let mut socket = connect(&server.origin()).await;
    socket.write_all(post("/h", "{}").as_bytes()).await.unwrap();
    let mut chunk = [0_u8; 1024];
    assert!(socket.read(&mut chunk).await.unwrap() > 0);
    drop(socket);
    tokio::time::timeout(Duration::from_secs(5), server.wait_closed(1))
        .await
        .unwrap();
    assert_eq!(server.closed().len(), 1);
}

#[tokio::test]
async fn an_openai_feed_streams_what_it_is_given_and_finishes_the_answer() {
    let server = OpenAiServer::start(vec![Reply::Feed(Vec::new())])
        .await
        .unwrap();
    server.feed(text_delta("queued before the request"));
    let mut socket = connect(server.base_url()).await;
    let request = post("/v1/chat/completions", r#"{"model":"test-model"}"#);
    socket.write_all(request.as_bytes()).await.unwrap();
    server.feed(text_delta("and after it"));
    server.finish_feed();
    let received = read_to_end(&mut socket).await;
    let body = body_of(&received);
    assert!(body.contains("queued before the request"), "{body}");
    assert!(body.contains("and after it"), "{body}");
    assert!(body.contains(r#""finish_reason":"stop""#), "{body}");
    assert!(body.ends_with("data: [DONE]\n\n"), "{body}");
    assert!(server.last_byte_at().is_some());
    assert_eq!(server.requests()[0].body, json!({"model": "test-model"}));
}

#[tokio::test]
async fn openai_replies_repeat_the_last_and_other_paths_are_not_found() {
    let server = OpenAiServer::start(vec![
        Reply::Status(429, json!({"error": {"message": "slow down"}})),
        Reply::Stream(text_chunks(&["Hi"])),
    ])
    .await
    .unwrap();
    let mut answers = Vec::new();
    for path in [
        "/v1/models",
        "/v1/chat/completions",
        "/v1/chat/completions",
        "/v1/chat/completions",
    ] {
        let mut socket = connect(server.base_url()).await;
        socket.write_all(post(path, "{}").as_bytes()).await.unwrap();
        let mut chunk = [0_u8; 4096];
        let read = socket.read(&mut chunk).await.unwrap();
        let head = String::from_utf8_lossy(&chunk[..read]).into_owned();
        answers.push(head.lines().next().unwrap().to_owned());
    }
    assert_eq!(
        answers,
        [
            "HTTP/1.1 404 Not Found",
            "HTTP/1.1 429 Too Many Requests",
            "HTTP/1.1 200 OK",
            "HTTP/1.1 200 OK"
        ]
    );
    assert_eq!(server.requests().len(), 3, "only the chat requests");
}
