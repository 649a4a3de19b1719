//! Measures `list_download_files` on a generated Downloads folder (default 100,000 files; pass another count as
//! the first argument): wall time of whole tool calls and the size of what the model receives.
//!
//! `cargo run --release -p desktop-host --example listing_bench [COUNT]`

#![allow(clippy::print_stdout, reason = "a benchmark prints its numbers")]

use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

use desktop_host::desktop_paths::{DesktopPaths, KnownFolder};
use desktop_host::desktop_tools::{DesktopToolContext, ListFilesArgs, list_folder_files};
use desktop_host::language::Language;
use tokio_util::sync::CancellationToken;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let count: usize = std::env::args()
        .nth(1)
        .map(|arg| arg.parse())
        .transpose()?
        .unwrap_or(100_000);
    let home = tempfile::tempdir()?;
    let downloads = home.path().join("Downloads");
    let extensions = ["pdf", "txt", "jpg", "zip", "docx", "mp4", "md", "exe"];
    let started = Instant::now();
    for idx in 0..count {
        // One file in ten sits one folder down, so recursive walks have folders to enter.
        let folder = if idx % 10 == 0 {
            downloads.join(format!("folder-{}", idx % 100))
        } else {
            downloads.clone()
        };
        if idx < 100 {
            std::fs::create_dir_all(&folder)?;
        }
        let path = folder.join(format!(
            "file-{idx:06}-报告.{}",
            extensions[idx % extensions.len()]
        ));
        let file = std::fs::File::create(&path)?;
        file.set_modified(
            SystemTime::UNIX_EPOCH
                + Duration::from_secs(1_600_000_000 + idx as u64 * 7 % 1_000_003),
        )?;
    }
    println!("generated {count} files in {:.1?}", started.elapsed());

    let paths =
        DesktopPaths::from_folders(home.path().to_path_buf(), Some(downloads), HashMap::new());
    let context = DesktopToolContext::new(paths, Language::En);
    let cases: Vec<(&str, ListFilesArgs)> = vec![
        (
            "top level, newest first, default limit",
            ListFilesArgs::default(),
        ),
        (
            "top level, pdf only",
            ListFilesArgs {
                extensions: vec!["pdf".to_owned()],
                ..ListFilesArgs::default()
            },
        ),
        (
            "recursive, by name",
            ListFilesArgs {
                recursive: true,
                sort: Some("name".to_owned()),
                ..ListFilesArgs::default()
            },
        ),
        (
            "recursive, name filter, limit 1000",
            ListFilesArgs {
                recursive: true,
                name_contains: Some("报告".to_owned()),
                limit: Some(1000),
                ..ListFilesArgs::default()
            },
        ),
    ];
    for (label, args) in cases {
        let mut timings = Vec::new();
        let mut cpu_timings = Vec::new();
        let mut output = None;
        for _ in 0..5 {
            let cpu_started = process_cpu_time();
            let started = Instant::now();
            let result = list_folder_files(
                &context,
                "list_download_files",
                KnownFolder::Downloads,
                args.clone(),
                &CancellationToken::new(),
            )
            .await?;
            timings.push(started.elapsed());
            cpu_timings.push(process_cpu_time().saturating_sub(cpu_started));
            output = Some(result);
        }
        timings.sort();
        cpu_timings.sort();
        let output = output.ok_or("no run")?;
        println!(
            "{label}: wall median {:.1?} (min {:.1?}, max {:.1?}), CPU median {:.1?}; model content {} bytes; \
             totalMatched {}; nextCursor {}",
            timings[timings.len() / 2],
            timings[0],
            timings[timings.len() - 1],
            cpu_timings[cpu_timings.len() / 2],
            output.content.len(),
            output.details["totalMatched"],
            output.details["nextCursor"].is_string(),
        );
    }
    Ok(())
}

/// User plus system CPU time of this process so far (Linux `/proc/self/stat`; zero elsewhere), so numbers taken
/// on a busy machine still say what the listing itself costs.
fn process_cpu_time() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the command name (which sits in parentheses and may hold spaces): utime is the 14th field
    // of the line, stime the 15th, both in clock ticks (100 per second on Linux).
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |idx: usize| {
        fields
            .get(idx)
            .and_then(|field| field.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Duration::from_millis((ticks(11) + ticks(12)) * 10)
}
