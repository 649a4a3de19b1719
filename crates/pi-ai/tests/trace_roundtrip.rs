//! JSON round trip over the conformance traces recorded from pi 0.85.1: every LLM message and every
//! assistant-message event in them decodes into pi-ai's types and re-encodes to exactly the same JSON.
//!
//! Traces strip every `timestamp` key; pi's messages always have one, so the test puts `"timestamp": 0` back
//! before decoding and strips it again after encoding. `message_update` events carry their
//! `assistantMessageEvent` without `partial`; the test supplies the update's `message` (or an empty partial when
//! the trace omits it) and re-encodes with [`AssistantMessageEvent::without_partial`].

#![allow(
    clippy::unwrap_used,
    reason = "test code: a broken fixture should fail loudly"
)]

use std::fs;
use std::path::{Path, PathBuf};

use pi_ai::{Api, AssistantMessage, AssistantMessageEvent, Message};
use pretty_assertions::assert_eq;
use serde_json::{Map, Value, json};

const LLM_ROLES: [&str; 3] = ["user", "assistant", "toolResult"];

fn trace_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
}

fn is_llm_message(value: &Value) -> bool {
    value
        .get("role")
        .and_then(Value::as_str)
        .is_some_and(|role| LLM_ROLES.contains(&role))
}

/// Every LLM message object anywhere in `value`, with a JSON-pointer-like location.
fn collect_messages<'a>(value: &'a Value, location: String, out: &mut Vec<(String, &'a Value)>) {
    match value {
        Value::Object(object) => {
            if is_llm_message(value) {
                out.push((location, value));
                return;
            }
            for (key, child) in object {
                collect_messages(child, format!("{location}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (idx, child) in items.iter().enumerate() {
                collect_messages(child, format!("{location}/{idx}"), out);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

fn with_timestamp(message: &Value) -> Value {
    let mut message = message.clone();
    if let Value::Object(object) = &mut message {
        object.insert("timestamp".into(), json!(0));
    }
    message
}

fn strip_timestamps(value: &mut Value) {
    match value {
        Value::Object(object) => {
            object.remove("timestamp");
            object.values_mut().for_each(strip_timestamps);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_timestamps),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

fn roundtrip_message(original: &Value) -> Result<Value, String> {
    let decoded: Message =
        serde_json::from_value(with_timestamp(original)).map_err(|e| e.to_string())?;
    let mut encoded = serde_json::to_value(&decoded).map_err(|e| e.to_string())?;
    strip_timestamps(&mut encoded);
    Ok(encoded)
}

fn empty_partial() -> Value {
    let message =
        AssistantMessage::empty_for(Api::SCRIPTED, "scripted".into(), "scripted-1".into());
    serde_json::to_value(message).unwrap()
}

fn roundtrip_event(event: &Value, partial: Option<&Value>) -> Result<(Value, Value), String> {
    let partial = partial.map_or_else(empty_partial, with_timestamp);
    let mut with_partial: Map<String, Value> =
        event.as_object().cloned().ok_or("event is not an object")?;
    with_partial.insert("partial".into(), partial);
    let decoded: AssistantMessageEvent =
        serde_json::from_value(Value::Object(with_partial.clone())).map_err(|e| e.to_string())?;
    let without = serde_json::to_value(decoded.without_partial()).map_err(|e| e.to_string())?;
    let mut full = serde_json::to_value(&decoded).map_err(|e| e.to_string())?;
    strip_timestamps(&mut full);
    let mut expected_full = Value::Object(with_partial);
    strip_timestamps(&mut expected_full);
    Ok((without, full)).and_then(|(without, full)| {
        if full == expected_full {
            Ok((without, full))
        } else {
            Err(format!("full event differs: {full} vs {expected_full}"))
        }
    })
}

#[test]
fn every_message_in_the_traces_round_trips_exactly() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for file in trace_files() {
        let trace: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
        let mut messages = Vec::new();
        collect_messages(&trace, String::new(), &mut messages);
        for (location, original) in messages {
            checked += 1;
            match roundtrip_message(original) {
                Ok(encoded) if &encoded == original => {}
                Ok(encoded) => failures.push(format!(
                    "{}{location}:\n  in:  {original}\n  out: {encoded}",
                    file.display()
                )),
                Err(error) => failures.push(format!(
                    "{}{location}: {error}\n  in: {original}",
                    file.display()
                )),
            }
        }
    }
    assert_eq!(failures, Vec::<String>::new());
    assert!(checked > 1000, "only {checked} messages found");
}

#[test]
fn every_assistant_message_event_in_the_traces_round_trips_exactly() {
    let mut checked = 0;
    let mut tags = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    for file in trace_files() {
        let trace: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
        let events = trace["events"].as_array().unwrap();
        for (idx, agent_event) in events.iter().enumerate() {
            let Some(event) = agent_event.get("assistantMessageEvent") else {
                continue;
            };
            checked += 1;
            tags.insert(event["type"].as_str().unwrap_or_default().to_owned());
            match roundtrip_event(event, agent_event.get("message")) {
                Ok((without, _)) if &without == event => {}
                Ok((without, _)) => failures.push(format!(
                    "{} event {idx}:\n  in:  {event}\n  out: {without}",
                    file.display()
                )),
                Err(error) => failures.push(format!("{} event {idx}: {error}", file.display())),
            }
        }
    }
    assert_eq!(failures, Vec::<String>::new());
    assert!(checked > 3000, "only {checked} events found");
    let expected: std::collections::BTreeSet<String> = [
        "text_start",
        "text_delta",
        "text_end",
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_end",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(tags, expected);
}

#[test]
fn terminal_and_start_events_use_pi_tags() {
    let message = serde_json::to_value(AssistantMessage::empty_for(
        Api::SCRIPTED,
        "p".into(),
        "m".into(),
    ))
    .unwrap();
    for (event, tag) in [
        (json!({"type": "start", "partial": message}), "start"),
        (
            json!({"type": "done", "reason": "toolUse", "message": message}),
            "done",
        ),
        (
            json!({"type": "error", "reason": "aborted", "error": message}),
            "error",
        ),
    ] {
        let decoded: AssistantMessageEvent = serde_json::from_value(event.clone()).unwrap();
        assert_eq!(decoded.event_type(), tag);
        assert_eq!(serde_json::to_value(&decoded).unwrap(), event);
    }
}
