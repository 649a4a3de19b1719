//! The app's processes as /proc shows them, for the benchmarks: the `pi-desktop` process of one launch (found by
//! its home), the WebKit processes below it, and their memory.

use std::path::Path;

/// Linux's USER_HZ: /proc/PID/stat counts start times in these ticks.
const CLOCK_TICKS_PER_SECOND: f64 = 100.0;

pub(crate) struct Process {
    pub(crate) pid: u32,
    pub(crate) parent: u32,
    pub(crate) kind: String,
    pub(crate) started_ticks: u64,
}

impl Process {
    /// When the process started, in seconds since boot (10 ms resolution), the clock of [`uptime_seconds`].
    #[allow(
        clippy::cast_precision_loss,
        reason = "clock ticks since boot fit an f64"
    )]
    pub(crate) fn started_seconds(&self) -> f64 {
        self.started_ticks as f64 / CLOCK_TICKS_PER_SECOND
    }
}

/// Seconds since boot, from /proc/uptime (10 ms resolution), to place process start times on our clock.
pub(crate) fn uptime_seconds() -> f64 {
    let text = std::fs::read_to_string("/proc/uptime").unwrap_or_default();
    text.split_whitespace()
        .next()
        .and_then(|seconds| seconds.parse().ok())
        .unwrap_or(f64::NAN)
}

pub(crate) fn processes() -> Vec<Process> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The command name is in parentheses and may hold spaces: the fields start after the last ')'.
        let Some((_, fields)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = fields.split_whitespace().collect();
        let (Some(parent), Some(started)) = (fields.get(1), fields.get(19)) else {
            continue;
        };
        let argv0 = std::fs::read(entry.path().join("cmdline"))
            .ok()
            .and_then(|cmdline| {
                cmdline
                    .split(|byte| *byte == 0)
                    .next()
                    .map(|first| String::from_utf8_lossy(first).into_owned())
            })
            .unwrap_or_default();
        let kind = Path::new(&argv0)
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        found.push(Process {
            pid,
            parent: parent.parse().unwrap_or(0),
            kind,
            started_ticks: started.parse().unwrap_or(0),
        });
    }
    found
}

/// The `pi-desktop` process whose environment has `HOME=home` (each launch has its own home).
pub(crate) fn app_process(home: &Path) -> Option<Process> {
    let wanted = format!("HOME={}", home.display());
    processes().into_iter().find(|process| {
        process.kind == "pi-desktop"
            && std::fs::read(format!("/proc/{}/environ", process.pid)).is_ok_and(|environ| {
                environ
                    .split(|byte| *byte == 0)
                    .any(|entry| entry == wanted.as_bytes())
            })
    })
}

/// The environment of the WebKit web process below the app at `app_pid`, as `NAME=value` entries. The app sets
/// its rendering switches in its own environment, which /proc does not show (it shows what a process was started
/// with); the web process it starts inherits them.
pub(crate) fn web_process_environment(app_pid: u32) -> Vec<String> {
    let web_process = web_processes(app_pid)
        .into_iter()
        .next()
        .expect("the app has no WebKit web process");
    std::fs::read(format!("/proc/{}/environ", web_process.pid))
        .expect("the web process's environment is readable")
        .split(|byte| *byte == 0)
        .map(|entry| String::from_utf8_lossy(entry).into_owned())
        .collect()
}

/// The WebKit web processes below the app at `app_pid`.
pub(crate) fn web_processes(app_pid: u32) -> Vec<Process> {
    with_descendants(app_pid)
        .into_iter()
        .filter(|process| process.kind == "WebKitWebProcess")
        .collect()
}

/// `root` and every process below it.
pub(crate) fn with_descendants(root: u32) -> Vec<Process> {
    let all = processes();
    let mut tree = vec![root];
    let mut index = 0;
    while index < tree.len() {
        let parent = tree[index];
        tree.extend(all.iter().filter(|p| p.parent == parent).map(|p| p.pid));
        index += 1;
    }
    all.into_iter().filter(|p| tree.contains(&p.pid)).collect()
}

/// (RSS, PSS) in KiB from /proc/PID/smaps_rollup.
pub(crate) fn rss_pss_kib(pid: u32) -> (u64, u64) {
    let text = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find(|line| line.starts_with(name))
            .and_then(|line| line.split_whitespace().nth(1))
            .and_then(|kib| kib.parse().ok())
            .unwrap_or(0)
    };
    (field("Rss:"), field("Pss:"))
}

/// PSS in KiB of the launch's `pi-desktop` process and every process below it (0 when it is gone).
pub(crate) fn app_pss_kib(home: &Path) -> u64 {
    app_process(home).map_or(0, |app| {
        with_descendants(app.pid)
            .iter()
            .map(|process| rss_pss_kib(process.pid).1)
            .sum()
    })
}
