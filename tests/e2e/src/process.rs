//! Finding the app process that tauri-driver started: the harness never spawns it itself, so it is found
//! by its name and the `HOME` the harness gave it (each launch has its own home).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// How long a killed, terminated or closed app may take to disappear from the process table.
pub(crate) const EXIT_DEADLINE: Duration = Duration::from_secs(10);
/// How often the harness looks whether the app is gone.
pub(crate) const EXIT_POLL: Duration = Duration::from_millis(50);

/// The name the kernel reports for the app (`/proc/PID/comm`).
const APP_PROCESS_NAME: &str = "pi-desktop";

/// The PID of the running `pi-desktop` whose environment has `HOME=home`, if there is one.
fn app_pid(home: &Path) -> Option<i32> {
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

/// The app process tauri-driver started for one home, found by that `HOME`. Dropped, it ends every app process still
/// running with that home: a test that fails panics before it reaches `AppUnderTest::close`, and tauri-driver going
/// away does not always take the app with it; the orphan would stay on the test display for the tests after it,
/// holding the quick-ask shortcut's key grab and coming between their windows and the focus. Nothing of a failed
/// test's app is worth saving, so it gets SIGKILL.
#[derive(Debug)]
pub(crate) struct AppProcess {
    home: PathBuf,
}

impl AppProcess {
    pub(crate) fn new(home: &Path) -> Self {
        Self {
            home: home.to_path_buf(),
        }
    }

    /// Its PID while it runs.
    pub(crate) fn pid(&self) -> Option<i32> {
        app_pid(&self.home)
    }
}

impl Drop for AppProcess {
    fn drop(&mut self) {
        let started = Instant::now();
        while let Some(pid) = self.pid() {
            // ESRCH: it exited meanwhile; any other error leaves nothing to wait for.
            if kill(Pid::from_raw(pid), Signal::SIGKILL).is_err() && is_running(pid) {
                return;
            }
            while is_running(pid) {
                if started.elapsed() > EXIT_DEADLINE {
                    return;
                }
                std::thread::sleep(EXIT_POLL);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Command;

    use super::*;

    #[test]
    fn dropped_it_kills_the_app_still_running_in_its_home_and_no_other() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join(APP_PROCESS_NAME);
        std::fs::copy("/bin/sleep", &program).unwrap();
        let [home, other_home] = ["home", "other-home"].map(|name| {
            let home = dir.path().join(name);
            std::fs::create_dir(&home).unwrap();
            home
        });
        let spawn = |home: &Path| {
            Command::new(&program)
                .arg("60")
                .env("HOME", home)
                .spawn()
                .unwrap()
        };
        let mut app = spawn(&home);
        let mut other = spawn(&other_home);
        let process = AppProcess::new(&home);
        assert_eq!(process.pid(), i32::try_from(app.id()).ok());

        drop(process);

        assert_eq!(app.wait().unwrap().signal(), Some(Signal::SIGKILL as i32));
        assert_eq!(
            other.try_wait().unwrap(),
            None,
            "another home's app runs on"
        );
        other.kill().unwrap();
        other.wait().unwrap();
    }
}
