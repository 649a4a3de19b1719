//! The conformance harness as a command.
//!
//! ```text
//! conformance --out DIR PATH...             write DIR/NAME.trace.json for every scenario file or directory
//! conformance --check EXPECTED_DIR PATH...  compare with EXPECTED_DIR/NAME.trace.json; exit 1 on a difference
//! conformance --bench RUNS PATH...          run each scenario RUNS times (recording off), print medians
//! ```

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line tool reports on stdout/stderr"
)]

/// The runtime allocates and frees many small event snapshots; profiling showed glibc's malloc (including
/// `malloc_consolidate` for the larger events) at a quarter of the time, so the command uses mimalloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../tests/harness/mod.rs"]
mod harness;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

enum Mode {
    Out(PathBuf),
    Check(PathBuf),
    Bench(usize),
}

const USAGE: &str = "usage: conformance (--out DIR | --check EXPECTED_DIR | --bench RUNS) PATH...";

fn parse_args(args: &[String]) -> Result<(Mode, Vec<PathBuf>), String> {
    let (flag, value) = match args {
        [flag, value, ..] => (flag.as_str(), value.as_str()),
        _ => return Err(USAGE.into()),
    };
    let mode = match flag {
        "--out" => Mode::Out(PathBuf::from(value)),
        "--check" => Mode::Check(PathBuf::from(value)),
        "--bench" => Mode::Bench(
            value
                .parse()
                .map_err(|_| format!("--bench needs a positive number of runs, got {value}"))?,
        ),
        other => return Err(format!("unknown option {other}\n{USAGE}")),
    };
    let paths: Vec<PathBuf> = args.iter().skip(2).map(PathBuf::from).collect();
    if paths.is_empty() {
        return Err(USAGE.into());
    }
    Ok((mode, paths))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mode, paths) = match parse_args(&args) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let mut files = Vec::new();
    for path in &paths {
        match harness::list_scenario_files(path) {
            Ok(found) => files.extend(found),
            Err(error) => {
                eprintln!("{error}");
                return ExitCode::from(2);
            }
        }
    }
    if let Mode::Out(dir) = &mode {
        if let Err(error) = std::fs::create_dir_all(dir) {
            eprintln!("{}: {error}", dir.display());
            return ExitCode::from(2);
        }
    }
    let mut failures = 0;
    let mut passed = 0;
    for file in &files {
        match run_one(&mode, file) {
            Ok(()) => passed += 1,
            Err(message) => {
                failures += 1;
                println!("FAIL  {message}");
            }
        }
    }
    if let Mode::Check(_) = mode {
        println!("{passed} passed, {failures} failed");
    }
    if failures > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn run_one(mode: &Mode, file: &Path) -> Result<(), String> {
    let scenario =
        harness::load_scenario(file).map_err(|error| format!("{}: {error}", file.display()))?;
    let name = scenario.name.clone();
    match mode {
        Mode::Out(dir) => {
            let trace = harness::run_blocking(&scenario, true)
                .map_err(|error| format!("{name}: runner error: {error}"))?;
            let target = dir.join(format!("{name}.trace.json"));
            std::fs::write(&target, harness::serialize_trace(&trace))
                .map_err(|error| format!("{}: {error}", target.display()))?;
            println!("wrote {}", target.display());
            Ok(())
        }
        Mode::Check(dir) => {
            let trace = harness::run_blocking(&scenario, true)
                .map_err(|error| format!("{name}: runner error: {error}"))?;
            let target = dir.join(format!("{name}.trace.json"));
            let text = std::fs::read_to_string(&target)
                .map_err(|_| format!("{name}: no expected trace at {}", target.display()))?;
            let expected: Value = serde_json::from_str(&text)
                .map_err(|error| format!("{}: {error}", target.display()))?;
            match harness::compare_traces(&expected, &trace) {
                None => {
                    println!("ok    {name}");
                    Ok(())
                }
                Some(difference) => Err(format!("{name}: {difference}")),
            }
        }
        Mode::Bench(runs) => {
            let (median, events) = harness::bench(&scenario, *runs)
                .map_err(|error| format!("{name}: runner error: {error}"))?;
            println!(
                "{name} median_ms={:.3} events={events}",
                median.as_secs_f64() * 1000.0
            );
            Ok(())
        }
    }
}
