//! A private D-Bus session bus for one test: its own `dbus-daemon` on a socket in a temporary folder, with no
//! service activation (nothing on it is started on demand, e.g. no keyring daemon), stopped with SIGTERM when
//! dropped. Needs the Debian package `dbus`.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use tempfile::TempDir;

/// How long the daemon may take to print its address.
const START_DEADLINE: Duration = Duration::from_secs(10);

/// A running private session bus.
pub(crate) struct SessionBus {
    daemon: Child,
    address: String,
    _folder: TempDir,
}

impl SessionBus {
    /// Starts `dbus-daemon` and waits until it printed the address it listens on.
    pub(crate) fn start() -> SessionBus {
        let folder = tempfile::Builder::new()
            .prefix("pi-desktop-e2e-bus-")
            .tempdir()
            .unwrap();
        let config = folder.path().join("session.conf");
        std::fs::write(
            &config,
            bus_config(&folder.path().join("bus").display().to_string()),
        )
        .unwrap();
        let mut daemon = Command::new("dbus-daemon")
            .arg(format!("--config-file={}", config.display()))
            .arg("--nofork")
            .arg("--print-address")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("dbus-daemon must be installed (Debian package dbus)");
        let stdout = daemon.stdout.take().unwrap();
        // The daemon prints its address once it listens: that line is the readiness signal.
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let read = BufReader::new(stdout).read_line(&mut line).map(|_| line);
            let _ = sender.send(read);
        });
        let address = match receiver.recv_timeout(START_DEADLINE) {
            Ok(Ok(line)) if !line.trim().is_empty() => line.trim().to_owned(),
            other => {
                let _ = daemon.kill();
                let _ = daemon.wait();
                panic!("dbus-daemon printed no address within {START_DEADLINE:?}: {other:?}");
            }
        };
        SessionBus {
            daemon,
            address,
            _folder: folder,
        }
    }

    /// The value for `DBUS_SESSION_BUS_ADDRESS`.
    pub(crate) fn address(&self) -> &str {
        &self.address
    }
}

impl Drop for SessionBus {
    fn drop(&mut self) {
        if let Ok(pid) = i32::try_from(self.daemon.id()) {
            let _ = kill(Pid::from_raw(pid), Signal::SIGTERM);
        }
        let _ = self.daemon.wait();
    }
}

/// A session bus that only this user may use, listening on `socket`, with no `<servicedir>`: nothing is activated.
fn bus_config(socket: &str) -> String {
    format!(
        r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#
    )
}
