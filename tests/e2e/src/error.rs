//! What can go wrong while starting, driving or stopping the app under test.

use std::path::PathBuf;

/// An end-to-end harness failure; each says which step failed.
#[derive(Debug, thiserror::Error)]
pub enum E2eError {
    /// The app binary is not there; it must be built (with the UI embedded) before the tests run.
    #[error(
        "no app binary at {0}: build it with `cargo build -p pi-desktop --features custom-protocol`"
    )]
    AppMissing(PathBuf),
    /// `tauri-driver` could not be started.
    #[error("cannot start {program}: {source}")]
    DriverSpawn {
        program: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `tauri-driver` exited, or it or its WebKitWebDriver never listened on its port.
    #[error("tauri-driver or WebKitWebDriver did not listen on port {port} within {seconds} s")]
    DriverNotListening { port: u16, seconds: u64 },
    /// A local resource (free port, temporary folder, artifact file) failed.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// The WebDriver session could not be created (boxed: fantoccini's errors are large).
    #[error("cannot open a WebDriver session: {0}")]
    NewSession(Box<fantoccini::error::NewSessionError>),
    /// A WebDriver command failed (boxed: fantoccini's errors are large).
    #[error("webdriver command failed: {0}")]
    WebDriver(Box<fantoccini::error::CmdError>),
    /// No `pi-desktop` process with this home is running.
    #[error("no running pi-desktop process has HOME={}", home.display())]
    AppProcessNotFound { home: PathBuf },
    /// The app process could not be signalled.
    #[error("cannot signal the app (pid {pid}): {source}")]
    AppKill {
        pid: i32,
        #[source]
        source: nix::errno::Errno,
    },
    /// The app process was still there long after SIGKILL or SIGTERM.
    #[error("the app (pid {pid}) was still running {seconds} s after it was signalled to stop")]
    AppStillRunning { pid: i32, seconds: u64 },
    /// The quick-ask shortcut, pressed again and again, opened no window.
    #[error("Ctrl+Alt+Space (xdotool key) opened no quick-ask window within {seconds} s")]
    QuickAskNotOpened { seconds: u64 },
    /// Stopping `tauri-driver` failed.
    #[error("cannot stop tauri-driver (pid {pid}): {source}")]
    DriverStop {
        pid: i32,
        #[source]
        source: nix::errno::Errno,
    },
}

impl From<fantoccini::error::NewSessionError> for E2eError {
    fn from(error: fantoccini::error::NewSessionError) -> Self {
        Self::NewSession(Box::new(error))
    }
}

impl From<fantoccini::error::CmdError> for E2eError {
    fn from(error: fantoccini::error::CmdError) -> Self {
        Self::WebDriver(Box::new(error))
    }
}

impl E2eError {
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Self {
        let what = what.into();
        move |source| Self::Io { what, source }
    }
}
