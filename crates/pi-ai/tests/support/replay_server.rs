//! A provider-conformance fixture's `responses` script on the loopback server of `pi-test-support`: one
//! scripted response per request, in order, every request recorded.
//!
//! It maps the script format of `tests/data/provider-conformance/README.md` ("Responses") onto that server's
//! responses: SSE entries (`event`/`data`, `comment`, `raw`, `pause_ms`), `chunk_bytes` / `delay_ms` write
//! pacing, `split_utf8`, `line_ending`, `chunked` transfer encoding, `reset_after` (TCP RST after N body bytes),
//! and plain bodies with a status, headers and a content type. JSON `data` values are written compactly with
//! keys in file order and non-ASCII kept as UTF-8, exactly like the reference server. It also gives a request
//! its trace form, with the headers the reference server logs.
//!
//! An extension for fault tests (not used by the shared fixtures): `"stall": true` keeps the connection open
//! after the scripted body, sending nothing, until the client closes it (idle-timeout and abort tests); the
//! server notes when it does ([`LoopbackServer::closed`]).
//!
//! This file is shared by the integration tests, `benches/sse_throughput.rs` and `examples/provider-replay.rs`
//! (via `#[path]`).

use std::collections::BTreeMap;
use std::time::Duration;

use pi_test_support::{LoopbackServer, Pacing, Request, Response, ServerError, Stream, StreamEnd};
use serde_json::{Value, json};

/// Request headers that are recorded in a trace (the same subset as the reference server logs).
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

/// Binds 127.0.0.1 on a free port and answers the n-th request with `responses[n]` (a fixture's `responses`
/// array), and with a 500 once they are used up.
pub(crate) async fn start(responses: Vec<Value>) -> Result<LoopbackServer, ServerError> {
    let script: Vec<Response> = responses.iter().map(response).collect();
    LoopbackServer::start(move |_, index| {
        script.get(index).cloned().unwrap_or_else(|| {
            Response::json(
                500,
                &json!({"error": {"message": format!(
                    "replay server: no response scripted for request {}", index + 1)}}),
            )
        })
    })
    .await
}

/// The trace form `{method, path, headers, body}` of a request; of its headers only the logged ones, sorted by
/// name.
pub(crate) fn trace_request(request: &Request) -> Value {
    let headers: BTreeMap<&str, &str> = request
        .headers
        .iter()
        .filter(|(name, _)| LOGGED_HEADERS.contains(&name.as_str()))
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    json!({
        "method": request.method,
        "path": request.path,
        "headers": headers,
        "body": request.body,
    })
}

/// The server's answer to one entry of the script.
fn response(entry: &Value) -> Response {
    let status = entry
        .get("status")
        .and_then(Value::as_u64)
        .map_or(200, |status| u16::try_from(status).unwrap_or(u16::MAX));
    let mut response = if status != 200 || entry.get("body").is_some() {
        let content_type = text(entry, "content_type", "application/json");
        Response::complete(status, content_type, text(entry, "body", ""))
    } else {
        Response::stream(stream(entry))
    };
    for (name, value) in string_map(entry.get("headers")) {
        response = response.header(name, value);
    }
    response
}

/// The SSE body of a 200 entry, paced and ended as the entry says.
fn stream(entry: &Value) -> Stream {
    let events = entry
        .get("events")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let delay_ms = entry.get("delay_ms").and_then(Value::as_f64).unwrap_or(1.0);
    let mut stream = Stream::sse()
        .content_type(text(entry, "content_type", "text/event-stream"))
        .paced(Pacing {
            write_size: Some(count(entry, "chunk_bytes").unwrap_or(7)),
            delay: Duration::from_secs_f64(delay_ms / 1000.0),
            split_utf8: flag(entry, "split_utf8"),
        });
    for (bytes, pause) in sse_segments(events, text(entry, "line_ending", "\n")) {
        stream = stream.write(bytes).pause(pause);
    }
    if flag(entry, "chunked") {
        stream = stream.chunked();
    }
    match count(entry, "reset_after") {
        Some(bytes) => stream.ending(StreamEnd::ResetAfter(bytes)),
        None if flag(entry, "stall") => stream.ending(StreamEnd::Hold),
        None => stream,
    }
}

fn text<'a>(entry: &'a Value, key: &str, default: &'a str) -> &'a str {
    entry.get(key).and_then(Value::as_str).unwrap_or(default)
}

fn flag(entry: &Value, key: &str) -> bool {
    entry.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn count(entry: &Value, key: &str) -> Option<usize> {
    entry
        .get(key)
        .and_then(Value::as_u64)
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

fn string_map(value: Option<&Value>) -> BTreeMap<String, String> {
    value
        .and_then(Value::as_object)
        .map(|map| {
            map.iter()
                .map(|(name, value)| {
                    let text = value
                        .as_str()
                        .map_or_else(|| value.to_string(), str::to_string);
                    (name.clone(), text)
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The SSE body of `entries`, all of it, without the pauses.
pub(crate) fn sse_bytes(entries: &[Value], eol: &str) -> Vec<u8> {
    sse_segments(entries, eol)
        .into_iter()
        .flat_map(|(bytes, _)| bytes)
        .collect()
}

/// The SSE body as `(bytes, pause after)` segments, split at `pause_ms` entries.
fn sse_segments(entries: &[Value], eol: &str) -> Vec<(Vec<u8>, Duration)> {
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
