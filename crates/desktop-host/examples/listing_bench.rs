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
        let mut output = None;
        for _ in 0..5 {
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
            output = Some(result);
        }
        timings.sort();
        let output = output.ok_or("no run")?;
        println!(
            "{label}: median {:.1?}, min {:.1?}, max {:.1?}; model content {} bytes; totalMatched {}; nextCursor {}",
            timings[timings.len() / 2],
            timings[0],
            timings[timings.len() - 1],
            output.content.len(),
            output.details["totalMatched"],
            output.details["nextCursor"].is_string(),
        );
    }
    Ok(())
}
