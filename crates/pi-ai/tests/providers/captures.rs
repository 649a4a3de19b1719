//! The real-capture corpus (`tests/data/provider-conformance/captures`): streams captured from the providers'
//! APIs and committed by public SDK and framework test suites, replayed through our adapters on the loopback
//! server. Every capture must run without a panic to one terminal event, with each block's deltas adding up
//! to its final content, every tool call of the stream parsed and the usage it reports read; and its trace
//! must be conformant with the one pi-ai 0.85.1's adapter produced (`captures/expected/`), except where pi
//! is wrong ([`PI_IS_WRONG`], each with its reason).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use futures_util::StreamExt;
use serde_json::Value;

use crate::support::{fixture_run, trace_compare};

fn captures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/provider-conformance/captures")
}

/// Licences a capture's source may carry.
const PERMISSIVE_LICENCES: [&str; 4] = ["MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause"];

/// Captures on which the port differs from pi-ai 0.85.1 because pi is wrong there: only the stopReason and the
/// requests must match pi's trace.
const PI_IS_WRONG: [(&str, &str); 3] = [
    (
        "openai-completions/mistral_reasoning",
        "Mistral streams delta.content as an array of typed parts (thinking, text): pi appends the array to the \
         text, which reads \"[object Object]\"; the port streams the thinking parts as a thinking block and the \
         text parts as text",
    ),
    (
        "openai-completions/openai_python_173417d553",
        "an OpenAI refusal (delta.refusal): pi drops it and ends with an empty answer that claims success; the \
         port keeps the refusal as the answer's text",
    ),
    (
        "openai-completions/openrouter_stream_error",
        "OpenRouter's mid-stream error chunk also reports the usage spent: pi fails on the error before reading \
         it and reports zero; the port keeps it in the failed message",
    ),
];

#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    name: String,
    api: String,
    provider: String,
    repository: String,
    path: String,
    commit: String,
    licence: String,
    framing: String,
    obtained: String,
}

impl Entry {
    fn id(&self) -> String {
        format!("{}/{}", self.api, self.name)
    }
}

fn manifest() -> Vec<Entry> {
    let text = std::fs::read_to_string(captures_dir().join("manifest.json")).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    serde_json::from_value(value["captures"].clone()).unwrap()
}

#[test]
fn every_capture_is_cited_and_every_cited_capture_is_there() {
    let entries = manifest();
    let mut ids = BTreeSet::new();
    for entry in &entries {
        assert!(ids.insert(entry.id()), "{} is listed twice", entry.id());
        assert!(
            PERMISSIVE_LICENCES.contains(&entry.licence.as_str()),
            "{}: licence {}",
            entry.id(),
            entry.licence
        );
        assert!(
            entry.commit.len() == 40 && entry.commit.chars().all(|c| c.is_ascii_hexdigit()),
            "{}: commit {:?}",
            entry.id(),
            entry.commit
        );
        assert!(
            entry.repository.contains('/') && !entry.path.is_empty(),
            "{}: source {} {}",
            entry.id(),
            entry.repository,
            entry.path
        );
        assert!(
            ["jsonl", "sse", "vcr-yaml"].contains(&entry.framing.as_str()),
            "{}: framing {}",
            entry.id(),
            entry.framing
        );
        assert!(!entry.provider.is_empty(), "{}: no provider", entry.id());
        assert_eq!(
            entry.obtained,
            "cited_file",
            "{}: a capture is the verbatim text of its cited file",
            entry.id()
        );
    }
    let files: BTreeSet<String> = fixture_run::collect(&captures_dir().join("fixtures"))
        .unwrap()
        .iter()
        .map(|path| fixture_run::load(path).unwrap().id)
        .collect();
    assert_eq!(files, ids, "fixture files and manifest entries differ");
    for (id, _) in PI_IS_WRONG {
        assert!(
            ids.contains(id),
            "{id} is listed in PI_IS_WRONG but not captured"
        );
    }
}

/// The data payloads of a capture, in stream order.
fn payloads(fixture: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for response in fixture["responses"].as_array().into_iter().flatten() {
        for event in response["events"].as_array().into_iter().flatten() {
            let texts: Vec<String> = match (&event["data"], &event["raw"]) {
                (Value::String(data), _) => vec![data.clone()],
                (Value::Null, Value::String(raw)) => raw
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(|data| data.trim_start().to_string())
                    .collect(),
                (data, _) => vec![data.to_string()],
            };
            out.extend(
                texts
                    .iter()
                    .filter_map(|text| serde_json::from_str::<Value>(text).ok()),
            );
        }
    }
    out
}

/// What the raw stream says, read independently of the adapters: its tool calls and its last output-token
/// count.
#[derive(Debug, Default)]
struct RawFacts {
    tool_calls: usize,
    output_tokens: Option<u64>,
    input_tokens: Option<u64>,
}

fn raw_facts(api: &str, payloads: &[Value]) -> RawFacts {
    let mut facts = RawFacts::default();
    let mut chat_calls = BTreeSet::new();
    for payload in payloads {
        match api {
            "openai-completions" => {
                for call in payload
                    .pointer("/choices/0/delta/tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let key = call["index"].as_i64().map_or_else(
                        || format!("id:{}", call["id"].as_str().unwrap_or_default()),
                        |index| format!("index:{index}"),
                    );
                    chat_calls.insert(key);
                }
                let usage = [
                    payload.get("usage"),
                    payload.pointer("/x_groq/usage"),
                    payload.pointer("/choices/0/usage"),
                ]
                .into_iter()
                .flatten()
                .find(|u| u.is_object());
                if let Some(usage) = usage {
                    facts.output_tokens = usage["completion_tokens"].as_u64();
                    facts.input_tokens = usage["prompt_tokens"].as_u64();
                }
            }
            "openai-responses" => {
                let kind = payload["type"].as_str().unwrap_or_default();
                if kind == "response.output_item.added"
                    && ["function_call", "custom_tool_call"]
                        .contains(&payload["item"]["type"].as_str().unwrap_or_default())
                {
                    facts.tool_calls += 1;
                }
                if ["response.completed", "response.incomplete"].contains(&kind) {
                    let usage = &payload["response"]["usage"];
                    facts.output_tokens = usage["output_tokens"].as_u64();
                    facts.input_tokens = usage["input_tokens"].as_u64();
                }
            }
            _ => {
                if payload["type"] == "content_block_start"
                    && payload["content_block"]["type"] == "tool_use"
                {
                    facts.tool_calls += 1;
                }
                let usage = match payload["type"].as_str() {
                    Some("message_start") => Some(&payload["message"]["usage"]),
                    Some("message_delta") => Some(&payload["usage"]),
                    _ => None,
                };
                if let Some(tokens) = usage.and_then(|u| u["output_tokens"].as_u64()) {
                    facts.output_tokens = Some(tokens);
                }
                if let Some(tokens) = usage.and_then(|u| u["input_tokens"].as_u64()) {
                    facts.input_tokens = Some(tokens);
                }
            }
        }
    }
    if api == "openai-completions" {
        facts.tool_calls = chat_calls.len();
    }
    facts
}

/// The invariants every capture must keep; the problems found.
fn invariant_problems(id: &str, fixture: &Value, trace: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let events = trace["events"].as_array().cloned().unwrap_or_default();
    let message = &trace["message"];
    let terminal: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "done" || e["type"] == "error")
        .collect();
    if terminal.len() != 1 || events.last() != terminal.first().copied() {
        problems.push(format!(
            "expected exactly one terminal event, last: {:?}",
            events.last()
        ));
    }
    let error = message["errorMessage"].as_str().unwrap_or_default();
    if error.contains("panicked") {
        problems.push(format!("the adapter panicked: {error}"));
    }
    let content = message["content"].as_array().cloned().unwrap_or_default();
    let mut streamed: BTreeMap<u64, String> = BTreeMap::new();
    for event in &events {
        if matches!(
            event["type"].as_str(),
            Some("text_delta" | "thinking_delta")
        ) {
            let index = event["contentIndex"].as_u64().unwrap_or(u64::MAX);
            streamed
                .entry(index)
                .or_default()
                .push_str(event["delta"].as_str().unwrap_or_default());
        }
    }
    for (index, block) in content.iter().enumerate() {
        // A redacted thinking block streams nothing: its placeholder text arrives with thinking_end.
        let redacted = block["redacted"] == true;
        let final_text = block["text"]
            .as_str()
            .or_else(|| block["thinking"].as_str())
            .filter(|_| !redacted);
        if let Some(final_text) = final_text {
            if final_text.contains("[object Object]") {
                problems.push(format!("block {index} shows \"[object Object]\""));
            }
            let deltas = streamed.get(&(index as u64)).map_or("", String::as_str);
            if deltas != final_text {
                problems.push(format!(
                    "block {index}: deltas add up to {} chars, the final content has {}",
                    deltas.chars().count(),
                    final_text.chars().count()
                ));
            }
        }
    }
    let facts = raw_facts(id.split('/').next().unwrap_or_default(), &payloads(fixture));
    let tool_calls: Vec<(usize, &Value)> = content
        .iter()
        .enumerate()
        .filter(|(_, b)| b["type"] == "toolCall")
        .collect();
    if tool_calls.len() != facts.tool_calls {
        problems.push(format!(
            "{} tool calls in the stream, {} parsed",
            facts.tool_calls,
            tool_calls.len()
        ));
    }
    // A tool call cut off (by an error or the output-token limit) has no end.
    let ended_well = message["stopReason"] == "stop" || message["stopReason"] == "toolUse";
    for (index, call) in tool_calls {
        if !call["arguments"].is_object() || call["name"].as_str().is_none_or(str::is_empty) {
            problems.push(format!("tool call {index} not parsed: {call}"));
        }
        let ended = events
            .iter()
            .any(|e| e["type"] == "toolcall_end" && e["contentIndex"] == index);
        if ended_well && !ended {
            problems.push(format!("tool call {index} got no toolcall_end"));
        }
    }
    let usage = &message["usage"];
    let output = usage["output"].as_u64().unwrap_or(0);
    if output != facts.output_tokens.unwrap_or(0) {
        problems.push(format!(
            "usage.output {output}, the stream reports {:?}",
            facts.output_tokens
        ));
    }
    let input = ["input", "cacheRead", "cacheWrite"]
        .iter()
        .map(|k| usage[k].as_u64().unwrap_or(0))
        .sum::<u64>();
    if facts.input_tokens.unwrap_or(0) > 0 && input == 0 {
        problems.push(format!(
            "the stream reports {:?} input tokens, usage none",
            facts.input_tokens
        ));
    }
    problems
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_capture_replays_cleanly_and_conforms_to_pi() {
    let root = captures_dir();
    let entries = manifest();
    let providers: BTreeMap<String, &Entry> = entries.iter().map(|e| (e.id(), e)).collect();
    let files = fixture_run::collect(&root.join("fixtures")).unwrap();
    assert!(
        files.len() >= 25,
        "expected the whole corpus, found {}",
        files.len()
    );
    let client = pi_ai::providers::http_client().unwrap();
    let apis = pi_ai::providers::builtin_apis(&client);
    let results: Vec<(fixture_run::Fixture, Result<Value, String>)> =
        futures_util::stream::iter(files)
            .map(|file| {
                let apis = apis.clone();
                async move {
                    let fixture = fixture_run::load(&file).unwrap();
                    let trace = fixture_run::run(&fixture, &apis).await;
                    (fixture, trace)
                }
            })
            .buffer_unordered(8)
            .collect()
            .await;
    let mut problems = Vec::new();
    let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut exact = 0;
    for (fixture, trace) in &results {
        let id = &fixture.id;
        let provider = providers.get(id).map_or("?", |e| e.provider.as_str());
        *counts
            .entry((fixture.api.clone(), provider.to_string()))
            .or_default() += 1;
        let actual = match trace {
            Ok(trace) => trace,
            Err(e) => {
                problems.push(format!("{id}: harness failure: {e}"));
                continue;
            }
        };
        for problem in invariant_problems(id, &fixture.value, actual) {
            problems.push(format!("{id}: {problem}"));
        }
        let expected_path = root.join("expected").join(format!("{id}.trace.json"));
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
        let pi_is_wrong = PI_IS_WRONG.iter().any(|(wrong, _)| wrong == id);
        if let Some(problem) = trace_compare::conformance_unless(pi_is_wrong, &expected, actual) {
            problems.push(format!("{id}: not conformant with pi: {problem}"));
        }
        if trace_compare::exact(&expected, actual) {
            exact += 1;
        }
    }
    let summary: Vec<String> = counts
        .iter()
        .map(|((api, provider), n)| format!("{api}/{provider}: {n}"))
        .collect();
    eprintln!(
        "captures: {} replayed ({}); exact with pi {exact}",
        results.len(),
        summary.join(", ")
    );
    assert!(
        problems.is_empty(),
        "captures with problems:\n{}",
        problems.join("\n")
    );
}
