//! The two comparison levels of the provider oracle (`compare-provider.mjs`): *conformant* (required) and
//! *exact* (informative). Shared by the conformance test and the replay example.

use serde_json::Value;

/// Fixtures where pi-ai 0.85.1 itself misbehaves, each with what it gets wrong: only the stopReason and the
/// requests must match (the port does the right thing instead).
pub(crate) const KNOWN_PI_DEFECTS: [(&str, &str); 8] = [
    (
        "anthropic-messages/crlf_split_between_cr_lf",
        "a CR and its LF in separate reads lose the event's data",
    ),
    (
        "anthropic-messages/eof_mid_event",
        "a half-sent last event is parsed anyway",
    ),
    (
        "anthropic-messages/last_event_without_blank_line",
        "an unterminated event is processed",
    ),
    (
        "anthropic-messages/tool_use_input_in_block_start",
        "input given at block start is thrown away",
    ),
    (
        "openai-responses/reasoning_summary",
        "summary deltas do not add up to the final thinking text",
    ),
    (
        "openai-responses/length_tool_call",
        "the scratch field partialJson leaks into the final message",
    ),
    (
        "openai-completions/refusal_field",
        "a refusal is silently dropped",
    ),
    (
        "openai-completions/usage_x_groq",
        "Groq's usage under x_groq.usage is not read, so tokens and cost are zero",
    ),
];

/// True when `name` is in [`KNOWN_PI_DEFECTS`].
pub(crate) fn is_known_pi_defect(name: &str) -> bool {
    KNOWN_PI_DEFECTS.iter().any(|(id, _)| *id == name)
}

const SCRATCH: [&str; 4] = ["partialJson", "partialArgs", "index", "streamIndex"];

fn clean(v: &Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(items.iter().map(clean).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !SCRATCH.contains(&k.as_str()))
                .map(|(k, x)| (k.clone(), clean(x)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Structural equality with numbers compared as doubles (relative tolerance 1e-12) and null/absent keys equal.
pub(crate) fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            x == y || (x - y).abs() <= 1e-12 * 1f64.max(x.abs()).max(y.abs())
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.keys()
                .chain(y.keys())
                .all(|k| match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => equal(p, q),
                    _ => false,
                })
        }
        _ => a == b,
    }
}

fn status_of(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    for i in 0..bytes.len().saturating_sub(2) {
        let window = &bytes[i..i + 3];
        let is_status = matches!(window[0], b'4' | b'5')
            && window[1].is_ascii_digit()
            && window[2].is_ascii_digit();
        let before_ok = i == 0 || !bytes[i - 1].is_ascii_digit();
        let after_ok = bytes.get(i + 3).is_none_or(|c| !c.is_ascii_digit());
        if is_status && before_ok && after_ok {
            return Some(String::from_utf8_lossy(window).into_owned());
        }
    }
    None
}

fn requests(trace: &Value) -> Value {
    let list = trace
        .get("requests")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    Value::Array(
        list.iter()
            .map(|q| {
                let headers = q.get("headers");
                let auth = headers
                    .and_then(|h| h.get("authorization").or_else(|| h.get("x-api-key")))
                    .cloned()
                    .unwrap_or(Value::Null);
                serde_json::json!({"method": q.get("method"), "path": q.get("path"), "body": q.get("body"), "auth": auth})
            })
            .collect(),
    )
}

fn deltas_add_up(events: &[Value], message: &Value) -> Option<String> {
    let mut acc: Vec<(u64, String)> = Vec::new();
    for e in events {
        let kind = e.get("type").and_then(Value::as_str).unwrap_or_default();
        if !kind.ends_with("_delta") || kind == "toolcall_delta" {
            continue;
        }
        let index = e.get("contentIndex").and_then(Value::as_u64).unwrap_or(0);
        let delta = e.get("delta").and_then(Value::as_str).unwrap_or_default();
        match acc.iter_mut().find(|(i, _)| *i == index) {
            Some((_, text)) => text.push_str(delta),
            None => acc.push((index, delta.to_string())),
        }
    }
    for (index, text) in acc {
        let block = message
            .get("content")
            .and_then(|c| c.get(usize::try_from(index).unwrap_or(usize::MAX)));
        let final_text = block
            .and_then(|b| b.get("text").or_else(|| b.get("thinking")))
            .and_then(Value::as_str);
        if let Some(final_text) = final_text {
            if !final_text.ends_with(&text) {
                return Some(format!(
                    "block {index}: streamed deltas do not add up to the final content"
                ));
            }
        }
    }
    None
}

/// `None` when `actual` is conformant with `expected`, else the first problem; a fixture in
/// [`KNOWN_PI_DEFECTS`] needs only the same stopReason and requests.
pub(crate) fn conformance(name: &str, expected: &Value, actual: &Value) -> Option<String> {
    conformance_unless(is_known_pi_defect(name), expected, actual)
}

/// [`conformance`], where `pi_is_wrong` asks only for the same stopReason and requests.
pub(crate) fn conformance_unless(
    pi_is_wrong: bool,
    expected: &Value,
    actual: &Value,
) -> Option<String> {
    let (e, a) = (clean(expected), clean(actual));
    if !equal(&requests(&e), &requests(&a)) {
        return Some("requests differ (method, path, auth header or body)".into());
    }
    let null = Value::Null;
    let em = e.get("message").unwrap_or(&null);
    let am = a.get("message").unwrap_or(&null);
    if em.get("stopReason") != am.get("stopReason") {
        return Some(format!(
            "stopReason {:?} (expected {:?})",
            am.get("stopReason"),
            em.get("stopReason")
        ));
    }
    if pi_is_wrong {
        return None;
    }
    let e_err = em
        .get("errorMessage")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    let a_err = am
        .get("errorMessage")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    if e_err.is_some() != a_err.is_some() {
        return Some(format!("errorMessage {a_err:?} (expected {e_err:?})"));
    }
    if let Some(status) = e_err.and_then(status_of) {
        if !a_err.unwrap_or_default().contains(&status) {
            return Some(format!(
                "errorMessage does not mention HTTP {status}: {a_err:?}"
            ));
        }
    }
    for k in [
        "content",
        "usage",
        "api",
        "provider",
        "model",
        "responseId",
        "responseModel",
        "rawStopReason",
    ] {
        let same = match (em.get(k), am.get(k)) {
            (None, None) => true,
            (Some(p), Some(q)) => equal(p, q),
            _ => false,
        };
        if !same {
            return Some(format!(
                "message.{k} differs: expected {:?}, got {:?}",
                em.get(k),
                am.get(k)
            ));
        }
    }
    let last = |t: &Value| {
        t.get("events")
            .and_then(Value::as_array)
            .and_then(|l| l.last())
            .cloned()
            .unwrap_or(Value::Null)
    };
    let (et, at) = (last(&e), last(&a));
    if et.get("type") != at.get("type") || et.get("reason") != at.get("reason") {
        return Some(format!("terminal event {at} (expected {et})"));
    }
    let events = a
        .get("events")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    deltas_add_up(&events, am)
}

/// The whole trace equal, event by event.
pub(crate) fn exact(expected: &Value, actual: &Value) -> bool {
    equal(expected, actual)
}
