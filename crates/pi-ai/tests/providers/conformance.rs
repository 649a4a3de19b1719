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
