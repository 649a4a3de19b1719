//! Finding the app process that tauri-driver started: the harness never spawns it itself, so it is found
//! by its name and the `HOME` the harness gave it (each launch has its own home).

use std::path::Path;

/// The name the kernel reports for the app (`/proc/PID/comm`).
const APP_PROCESS_NAME: &str = "pi-desktop";

/// The PID of the running `pi-desktop` whose environment has `HOME=home`, if there is one.
pub(crate) fn app_pid(home: &Path) -> Option<i32> {
    let wanted = format!("HOME={}", home.display());
    let entries = std::fs::read_dir("/proc").ok()?;
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .find(|pid| {
            // Processes may exit while we look: an unreadable entry is simply not ours.
            let name = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
            name.trim_end() == APP_PROCESS_NAME
                && std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|environ| {
                    environ
                        .split(|byte| *byte == 0)
                        .any(|entry| entry == wanted.as_bytes())
                })
        })
}

/// Whether a process with this PID still exists (a zombie counts as gone).
pub(crate) fn is_running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        // The state follows the parenthesised name: `PID (name) S ...`.
        stat.rsplit_once(") ")
            .and_then(|(_, rest)| rest.chars().next())
            .is_some_and(|state| state != 'Z' && state != 'X')
    })
}
