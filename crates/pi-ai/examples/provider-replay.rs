//! Replays provider-conformance fixtures through the Rust adapters and writes their traces.
//!
//! ```text
//! cargo run --release -p pi-ai --example provider-replay -- --out DIR PATH...
//! ```
//!
//! Every PATH is a fixture file (`<api>/<name>.json`), an api directory or a fixtures root. For each fixture
//! the trace is written to `DIR/<api>/<name>.trace.json` in the oracle's trace format, so
//! `node compare-provider.mjs EXPECTED DIR` can judge it. A malformed fixture is reported and skipped; the
//! exit code is 1 when any fixture could not be run.
#![allow(
    clippy::print_stdout,
    reason = "a command-line tool reporting what it wrote"
)]

#[path = "../tests/support/fixture_run.rs"]
#[allow(dead_code, reason = "shared with the tests, which use more of it")]
mod fixture_run;
#[path = "../tests/support/replay_server.rs"]
#[allow(dead_code, reason = "shared with the tests, which use more of it")]
mod replay_server;

use std::path::PathBuf;
use std::process::ExitCode;

use futures_util::StreamExt;

fn usage() -> ExitCode {
    eprintln!("usage: provider-replay --out DIR PATH...");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut out: Option<PathBuf> = None;
    let mut paths = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => match args.next() {
                Some(dir) => out = Some(PathBuf::from(dir)),
                None => return usage(),
            },
            "-h" | "--help" => return usage(),
            _ => paths.push(PathBuf::from(arg)),
        }
    }
    let Some(out) = out else { return usage() };
    if paths.is_empty() {
        return usage();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(run(out, paths))
}

/// Fixtures replayed at the same time (each has its own loopback server; the scripted write pauses dominate).
const JOBS: usize = 4;

async fn run(out: PathBuf, paths: Vec<PathBuf>) -> ExitCode {
    let client = match pi_ai::providers::http_client() {
        Ok(client) => client,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let apis = pi_ai::providers::builtin_apis(&client);
    let mut failed = 0usize;
    let mut written = 0usize;
    let mut fixtures = Vec::new();
    for path in paths {
        match fixture_run::collect(&path) {
            Ok(files) => {
                for file in files {
                    match fixture_run::load(&file) {
                        Ok(fixture) => fixtures.push(fixture),
                        Err(e) => {
                            eprintln!("error: {e}");
                            failed += 1;
                        }
                    }
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                failed += 1;
            }
        }
    }
    let results: Vec<_> = futures_util::stream::iter(fixtures)
        .map(|fixture| {
            let apis = apis.clone();
            async move {
                let trace = fixture_run::run(&fixture, &apis).await;
                (fixture, trace)
            }
        })
        .buffered(JOBS)
        .collect()
        .await;
    for (fixture, trace) in results {
        match trace {
            Ok(trace) => {
                let dir = out.join(&fixture.api);
                let target = dir.join(format!("{}.trace.json", fixture.name));
                let written_ok = std::fs::create_dir_all(&dir)
                    .and_then(|()| std::fs::write(&target, fixture_run::serialize_trace(&trace)));
                match written_ok {
                    Ok(()) => {
                        written += 1;
                        println!("wrote {}", target.display());
                    }
                    Err(e) => {
                        eprintln!("error: {}: cannot write: {e}", target.display());
                        failed += 1;
                    }
                }
            }
            Err(e) => {
                eprintln!("error: {}: {e}", fixture.id);
                failed += 1;
            }
        }
    }
    println!("{written} trace(s) written, {failed} failure(s)");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
