//! The `tauri-driver` process: started on free ports, stopped with SIGTERM.
//!
//! SIGTERM, never SIGKILL: on SIGTERM tauri-driver stops its `WebKitWebDriver`; a killed driver leaves
//! that child holding its port, and the next session hangs for minutes.

use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::E2eError;

const LISTEN_DEADLINE: Duration = Duration::from_secs(20);
const LISTEN_POLL_INTERVAL: Duration = Duration::from_millis(50);
const EXIT_DEADLINE: Duration = Duration::from_secs(10);

/// A running `tauri-driver`; dropping it stops the process.
#[derive(Debug)]
pub(crate) struct TauriDriver {
    child: Option<Child>,
    port: u16,
}

impl TauriDriver {
    /// Starts `program` on a free port with `WebKitWebDriver` on another, with `envs` added to the
    /// environment it (and so the app it launches) inherits, and waits until it accepts connections.
    pub(crate) async fn start(program: &Path, envs: &[(String, String)]) -> Result<Self, E2eError> {
        let port = free_port()?;
        let native_port = free_port()?;
        let child = Command::new(program)
            .arg("--port")
            .arg(port.to_string())
            .arg("--native-port")
            .arg(native_port.to_string())
            .envs(envs.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::null())
            .spawn()
            .map_err(|source| E2eError::DriverSpawn {
                program: PathBuf::from(program),
                source,
            })?;
        let mut driver = Self {
            child: Some(child),
            port,
        };
        // tauri-driver accepts connections before its WebKitWebDriver does, and forwards a new-session request
        // right away: wait for both, or the first session fails with "connection refused".
        driver.wait_until_listening(port).await?;
        driver.wait_until_listening(native_port).await?;
        Ok(driver)
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Sends SIGTERM and waits for the process to exit.
    pub(crate) fn stop(&mut self) -> Result<(), E2eError> {
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let pid = i32::try_from(child.id()).unwrap_or(i32::MAX);
        if child.try_wait().ok().flatten().is_none() {
            kill(Pid::from_raw(pid), Signal::SIGTERM)
                .map_err(|source| E2eError::DriverStop { pid, source })?;
        }
        wait_for_exit(&mut child, pid)
    }

    /// Polls `port` (tauri-driver's or WebKitWebDriver's): neither prints anything when it is ready, so a
    /// successful connection is the only readiness signal there is.
    async fn wait_until_listening(&mut self, port: u16) -> Result<(), E2eError> {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let listening = tokio::time::timeout(LISTEN_DEADLINE, async {
            loop {
                if tokio::net::TcpStream::connect(address).await.is_ok() {
                    return true;
                }
                let exited = self
                    .child
                    .as_mut()
                    .is_none_or(|child| child.try_wait().ok().flatten().is_some());
                if exited {
                    return false;
                }
                tokio::time::sleep(LISTEN_POLL_INTERVAL).await;
            }
        })
        .await;
        match listening {
            Ok(true) => Ok(()),
            Ok(false) | Err(_) => Err(E2eError::DriverNotListening {
                port,
                seconds: LISTEN_DEADLINE.as_secs(),
            }),
        }
    }
}

impl Drop for TauriDriver {
    fn drop(&mut self) {
        // A test that failed half-way still must not leave a driver holding ports.
        let _ = self.stop();
    }
}

/// A port that was free a moment ago: bind port 0, read the port the OS chose, release it.
fn free_port() -> Result<u16, E2eError> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .map_err(E2eError::io("cannot bind a loopback port"))?;
    let address = listener
        .local_addr()
        .map_err(E2eError::io("cannot read the bound port"))?;
    Ok(address.port())
}

fn wait_for_exit(child: &mut Child, pid: i32) -> Result<(), E2eError> {
    let deadline = std::time::Instant::now() + EXIT_DEADLINE;
    loop {
        match child.try_wait() {
            Ok(Some(_status)) => return Ok(()),
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(LISTEN_POLL_INTERVAL);
            }
            Ok(None) => {
                return Err(E2eError::Io {
                    what: format!(
                        "tauri-driver (pid {pid}) still running {EXIT_DEADLINE:?} after SIGTERM"
                    ),
                    source: std::io::Error::from(std::io::ErrorKind::TimedOut),
                });
            }
            Err(source) => {
                return Err(E2eError::Io {
                    what: format!("cannot wait for tauri-driver (pid {pid})"),
                    source,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_ports_can_be_bound_again() {
        let port = free_port().unwrap();
        assert_ne!(port, 0);
        TcpListener::bind((Ipv4Addr::LOCALHOST, port)).unwrap();
    }
}
