//! SSE bytes → AssistantMessageEvents through the real adapters, over a loopback connection.
//!
//! * `throughput/<api>/{long_text,tool_calls}`: MB/s of SSE body turned into events (criterion reports bytes/s);
//! * `per_delta/<n>`: the same path for an openai-completions answer of `n` text deltas; criterion reports
//!   elements/s, i.e. deltas/s — the time per delta must stay flat from 2k to 200k deltas.
//!
//! Run: `cargo bench -p pi-ai --bench sse_throughput`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "benchmark setup fails loudly"
)]

#[path = "../tests/support/fixture_run.rs"]
#[allow(dead_code, reason = "shared with the tests")]
mod fixture_run;
#[path = "../tests/support/replay_server.rs"]
#[allow(dead_code, reason = "shared with the tests")]
mod replay_server;
#[path = "../tests/support/scripts.rs"]
#[allow(dead_code, reason = "shared with the tests")]
mod scripts;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures_util::StreamExt;
use pi_ai::{ApiProvider, Context, Message, SimpleStreamOptions, UserMessage};
use serde_json::{Value, json};

use scripts::{Call, Ending, Wire};

/// One 200 response whose body is `events` serialised once, sent in 64 KiB writes.
fn prepared(events: &[Value]) -> (Value, u64) {
    let body = replay_server::sse_bytes(events, "\n");
    let len = body.len() as u64;
    let text = String::from_utf8(body).expect("utf-8");
    (
        json!({"status": 200, "chunk_bytes": 65_536, "delay_ms": 0, "events": [{"raw": text}]}),
        len,
    )
}

fn text_answer(wire: Wire, deltas: usize) -> Vec<Value> {
    let piece = "The quick brown fox jumps over the lazy dog. ";
    let pieces: Vec<&str> = std::iter::repeat_n(piece, deltas).collect();
    wire.answer(&[], &pieces, &[], Ending::Stop)
}

fn tool_answer(wire: Wire) -> Vec<Value> {
    let args: Vec<String> = (0..40)
        .map(|i| format!("{{\"k{i}\": \"value number {i}\", "))
        .collect();
    let mut parts: Vec<&str> = args.iter().map(String::as_str).collect();
    parts.push("\"end\": true}");
    let ids: Vec<String> = (0..100).map(|i| format!("call_{i}")).collect();
    let calls: Vec<Call<'_>> = ids
        .iter()
        .map(|id| Call {
            id,
            name: "read_document",
            args: &parts,
        })
        .collect();
    // Arguments of each call are a JSON object with repeated keys; the partial parser handles it.
    wire.answer(&[], &["Reading them all."], &calls, Ending::ToolUse)
}

/// Runs one request against a fresh server and returns the time from request to the terminal event.
async fn once(api: &Arc<dyn ApiProvider>, wire: Wire, response: &Value) -> Duration {
    let server = replay_server::start(vec![response.clone()]).await.unwrap();
    let model = fixture_run::build_model(wire.api(), None, &server.origin()).unwrap();
    let context = Context {
        system_prompt: None,
        messages: vec![Message::User(UserMessage::new("Go"))],
        tools: None,
    };
    let mut options = SimpleStreamOptions::default();
    options.base.api_key = Some("sk-bench".into());
    let started = Instant::now();
    let mut stream = api.stream_simple(model, context, options);
    let mut count = 0usize;
    while let Some(event) = stream.next().await {
        count += 1;
        if event.is_terminal() {
            assert!(
                matches!(event, pi_ai::AssistantMessageEvent::Done { .. }),
                "bench answer failed: {event:?}"
            );
        }
    }
    assert!(count > 2);
    started.elapsed()
}

fn adapters() -> Vec<Arc<dyn ApiProvider>> {
    let client = pi_ai::providers::http_client().unwrap();
    pi_ai::providers::builtin_apis(&client)
}

fn api_for(apis: &[Arc<dyn ApiProvider>], wire: Wire) -> Arc<dyn ApiProvider> {
    apis.iter()
        .find(|a| a.api().as_str() == wire.api())
        .cloned()
        .unwrap()
}

fn throughput(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let apis = adapters();
    let mut group = c.benchmark_group("throughput");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for wire in scripts::ALL {
        let api = api_for(&apis, wire);
        for (name, events) in [
            ("long_text", text_answer(wire, 20_000)),
            ("tool_calls", tool_answer(wire)),
        ] {
            let (response, bytes) = prepared(&events);
            group.throughput(Throughput::Bytes(bytes));
            group.bench_function(format!("{}/{name}", wire.api()), |b| {
                b.iter_custom(|iters| {
                    runtime.block_on(async {
                        let mut total = Duration::ZERO;
                        for _ in 0..iters {
                            total += once(&api, wire, &response).await;
                        }
                        total
                    })
                });
            });
        }
    }
    group.finish();
}

fn per_delta(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let apis = adapters();
    let wire = Wire::Completions;
    let api = api_for(&apis, wire);
    let mut group = c.benchmark_group("per_delta");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8));
    for deltas in [2_000u64, 20_000, 200_000] {
        let (response, _) = prepared(&text_answer(wire, usize::try_from(deltas).unwrap()));
        group.throughput(Throughput::Elements(deltas));
        group.bench_function(format!("{deltas}"), |b| {
            b.iter_custom(|iters| {
                runtime.block_on(async {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        total += once(&api, wire, &response).await;
                    }
                    total
                })
            });
        });
    }
    group.finish();
}

criterion_group!(benches, throughput, per_delta);
criterion_main!(benches);
