//! Replays every fixture of `tests/data/provider-conformance/fixtures` through our adapters and compares the
//! traces with the ones the real pi-ai 0.85.1 adapters produced (`expected/`), as `compare-provider.mjs` does.

use std::path::{Path, PathBuf};

use futures_util::StreamExt;
use serde_json::Value;

use crate::support::{fixture_run, trace_compare};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/provider-conformance")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fixture_is_conformant() {
    let root = data_dir();
    let files = fixture_run::collect(&root.join("fixtures")).unwrap();
    assert!(
        files.len() >= 70,
        "expected the whole fixture set, found {}",
        files.len()
    );
    let client = pi_ai::providers::http_client().unwrap();
    let apis = pi_ai::providers::builtin_apis(&client);
    let results: Vec<(String, Result<Value, String>)> = futures_util::stream::iter(files)
        .map(|file| {
            let apis = apis.clone();
            async move {
                let fixture = fixture_run::load(&file).unwrap();
                let trace = fixture_run::run(&fixture, &apis).await;
                (fixture.id, trace)
            }
        })
        .buffer_unordered(8)
        .collect()
        .await;
    let total = results.len();
    let mut problems = Vec::new();
    let mut exact = 0;
    for (id, trace) in results {
        let actual = match trace {
            Ok(trace) => trace,
            Err(e) => {
                problems.push(format!("{id}: harness failure: {e}"));
                continue;
            }
        };
        let expected_path = root.join("expected").join(format!("{id}.trace.json"));
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
        if let Some(problem) = trace_compare::conformance(&id, &expected, &actual) {
            problems.push(format!("{id}: {problem}"));
        }
        if trace_compare::exact(&expected, &actual) {
            exact += 1;
        }
    }
    let conformant = total - problems.len();
    eprintln!("provider conformance: conformant {conformant}/{total}; exact {exact}/{total}");
    assert!(
        problems.is_empty(),
        "non-conformant fixtures:\n{}",
        problems.join("\n")
    );
}

async fn run_fixture(id: &str, options: Option<Value>) -> Value {
    let path = data_dir().join("fixtures").join(format!("{id}.json"));
    let mut fixture = fixture_run::load(&path).unwrap();
    if let Some(options) = options {
        fixture.value["options"] = options;
    }
    let client = pi_ai::providers::http_client().unwrap();
    let apis = pi_ai::providers::builtin_apis(&client);
    fixture_run::run(&fixture, &apis).await.unwrap()
}

#[tokio::test]
async fn groq_usage_reported_only_under_x_groq_is_counted_and_priced() {
    let trace = run_fixture("openai-completions/usage_x_groq", None).await;
    let usage = &trace["message"]["usage"];
    assert_eq!(
        (&usage["input"], &usage["output"], &usage["totalTokens"]),
        (&Value::from(160), &Value::from(19), &Value::from(179))
    );
    let expected_cost = 3.0 / 1e6 * 160.0 + 15.0 / 1e6 * 19.0;
    let cost = usage["cost"]["total"].as_f64().unwrap();
    assert!((cost - expected_cost).abs() < 1e-15, "cost {cost}");
}

#[tokio::test]
async fn a_tool_choice_the_api_cannot_take_ends_the_stream_before_any_request() {
    for (id, choice) in [
        ("openai-completions/text_plain", serde_json::json!("any")),
        (
            "openai-completions/text_plain",
            serde_json::json!({"type": "function", "name": "read"}),
        ),
        (
            "anthropic-messages/text_plain",
            serde_json::json!("required"),
        ),
        (
            "anthropic-messages/text_plain",
            serde_json::json!({"type": "function", "function": {"name": "read"}}),
        ),
        (
            "openai-responses/text_plain",
            serde_json::json!({"type": "tool", "name": "read"}),
        ),
    ] {
        let trace = run_fixture(id, Some(serde_json::json!({ "toolChoice": choice }))).await;
        let events = trace["events"].as_array().unwrap();
        assert_eq!(events.len(), 1, "{id} {choice}: {events:?}");
        assert_eq!(events[0]["type"], "error", "{id} {choice}");
        let message = trace["message"]["errorMessage"].as_str().unwrap();
        let api = id.split('/').next().unwrap();
        assert!(
            message.starts_with(&format!(
                "tool choice {choice} is not accepted by the {api} API, which takes "
            )),
            "{id}: {message}"
        );
        assert_eq!(trace["requests"], serde_json::json!([]), "{id} {choice}");
    }
}
