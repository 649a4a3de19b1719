//! The app under test: one `pi-desktop` process in one WebDriver session, with its own home folder.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::wd::WindowHandle;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use tempfile::TempDir;

use crate::E2eError;
use crate::driver::TauriDriver;
use crate::process::{self, AppProcess, EXIT_DEADLINE, EXIT_POLL};

/// How long a test waits for an element to appear before failing.
const ELEMENT_DEADLINE: Duration = Duration::from_secs(30);
/// How long [`AppUnderTest::close`] lets the app exit by itself after the session ended.
const LINGER_DEADLINE: Duration = Duration::from_secs(2);
/// How often [`AppUnderTest::open_quick_ask`] presses the shortcut again.
const QUICK_ASK_POLL: Duration = Duration::from_millis(250);

/// Starts the paint mark of [`AppUnderTest::screenshot`]: a fixed one-pixel element whose colour flips every 50 ms.
const PAINT_MARK_START: &str = r#"
let mark = document.getElementById("e2e-paint-mark");
if (mark === null) {
  mark = document.createElement("div");
  mark.id = "e2e-paint-mark";
  mark.style.cssText = "position:fixed;left:0;top:0;width:1px;height:1px;pointer-events:none;z-index:2147483647";
  document.body.append(mark);
}
let on = false;
const flip = () => { on = !on; mark.style.background = on ? "rgba(128,128,128,0.02)" : "rgba(128,128,128,0.03)"; };
flip();
window.__e2ePaintMark = setInterval(flip, 50);
"#;

/// Stops and removes the paint mark.
const PAINT_MARK_STOP: &str = r#"
clearInterval(window.__e2ePaintMark);
document.getElementById("e2e-paint-mark")?.remove();
"#;

/// What to start the app with. `Default` is a fresh, empty app.
#[derive(Debug, Clone, Default)]
pub struct LaunchOptions {
    /// Extra environment for the app (for example the address of a loopback model server).
    pub envs: Vec<(String, String)>,
    /// Extra command-line arguments for the app.
    pub args: Vec<String>,
}

/// Where the time of [`AppUnderTest::launch`] went (for benchmarks; tests ignore it).
#[derive(Debug, Clone, Copy)]
pub struct LaunchTimings {
    /// From spawning `tauri-driver` until it and its `WebKitWebDriver` accept connections.
    pub driver_ready: Duration,
    /// From the new-session request until it returned: includes spawning the app and loading its page.
    pub session_open: Duration,
}

/// A running app in a WebDriver session. Call [`AppUnderTest::close`] at the end of a test; dropping
/// it instead (a test that failed) kills the app and stops the driver, but cannot end the session cleanly.
#[derive(Debug)]
pub struct AppUnderTest {
    /// First, so that dropped it ends the app before the driver stops and the home is removed.
    process: AppProcess,
    client: Client,
    driver: TauriDriver,
    home: TempDir,
    /// The environment added for this launch (isolated home folders and [`LaunchOptions::envs`]).
    envs: Vec<(String, String)>,
    timings: LaunchTimings,
}

impl AppUnderTest {
    /// Starts tauri-driver and the app, and opens a session on the app's main window.
    pub async fn launch(options: LaunchOptions) -> Result<Self, E2eError> {
        Self::launch_in(new_home()?, options).await
    }

    /// Like [`AppUnderTest::launch`], but in an existing home, for example the one [`AppUnderTest::kill`]
    /// returned: the app starts again on the data an earlier launch left there.
    pub async fn launch_in(home: TempDir, options: LaunchOptions) -> Result<Self, E2eError> {
        let application = app_binary();
        if !application.is_file() {
            return Err(E2eError::AppMissing(application));
        }
        let mut envs = isolated_home_envs(home.path());
        envs.push(no_session_bus_env(home.path()));
        envs.extend(options.envs);
        let driver_started = Instant::now();
        let driver = TauriDriver::start(&tauri_driver_binary(), &envs).await?;
        let driver_ready = driver_started.elapsed();

        let mut capabilities = serde_json::Map::new();
        capabilities.insert(
            "tauri:options".to_owned(),
            serde_json::json!({ "application": application, "args": options.args }),
        );
        let session_started = Instant::now();
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities)
            .connect(&driver.url())
            .await?;
        let timings = LaunchTimings {
            driver_ready,
            session_open: session_started.elapsed(),
        };
        Ok(Self {
            process: AppProcess::new(home.path()),
            client,
            driver,
            home,
            envs,
            timings,
        })
    }

    /// The WebDriver client, for anything the helpers below do not cover.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// How long starting the driver and opening the session took.
    pub fn launch_timings(&self) -> LaunchTimings {
        self.timings
    }

    /// The app's temporary home folder (`$HOME`; data, config and logs live under it).
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// Waits for the element with this `data-testid` and returns it.
    pub async fn find_test_id(&self, test_id: &str) -> Result<Element, E2eError> {
        let selector = format!("[data-testid=\"{test_id}\"]");
        let element = self
            .client
            .wait()
            .at_most(ELEMENT_DEADLINE)
            .for_element(Locator::Css(&selector))
            .await?;
        Ok(element)
    }

    /// Types `text` into the composer and presses Send.
    pub async fn send_prompt(&self, text: &str) -> Result<(), E2eError> {
        self.find_test_id("composer-input")
            .await?
            .send_keys(text)
            .await?;
        self.find_test_id("send-button").await?.click().await?;
        Ok(())
    }

    /// Waits until the element with this `data-testid` has exactly this text.
    pub async fn wait_for_text(&self, test_id: &str, text: &str) -> Result<Element, E2eError> {
        let xpath = format!("//*[@data-testid=\"{test_id}\" and normalize-space(.)=\"{text}\"]");
        let element = self
            .client
            .wait()
            .at_most(ELEMENT_DEADLINE)
            .for_element(Locator::XPath(&xpath))
            .await?;
        Ok(element)
    }

    /// Waits for the first element matching this CSS selector (for states: `[data-state="done"]`).
    pub async fn wait_for_css(&self, selector: &str) -> Result<Element, E2eError> {
        let element = self
            .client
            .wait()
            .at_most(ELEMENT_DEADLINE)
            .for_element(Locator::Css(selector))
            .await?;
        Ok(element)
    }

    /// Waits for the first element matching this XPath (for text that only has to contain something).
    pub async fn wait_for_xpath(&self, xpath: &str) -> Result<Element, E2eError> {
        let element = self
            .client
            .wait()
            .at_most(ELEMENT_DEADLINE)
            .for_element(Locator::XPath(xpath))
            .await?;
        Ok(element)
    }

    /// Presses the default quick-ask shortcut (Ctrl+Alt+Space) on the app's X display with `xdotool` until a
    /// window other than `main` exists, and returns that window's handle. The shortcut is registered while the
    /// app starts, so the first presses may come before it is.
    pub async fn open_quick_ask(&self, main: &WindowHandle) -> Result<WindowHandle, E2eError> {
        let started = Instant::now();
        loop {
            let status = Command::new("xdotool")
                .args(["key", "--clearmodifiers", "ctrl+alt+space"])
                .status()
                .map_err(E2eError::io("start xdotool"))?;
            if !status.success() {
                return Err(E2eError::Io {
                    what: "xdotool key ctrl+alt+space".to_owned(),
                    source: std::io::Error::other(format!("{status}")),
                });
            }
            tokio::time::sleep(QUICK_ASK_POLL).await;
            let windows = self.client.windows().await?;
            if let Some(quick) = windows.into_iter().find(|handle| handle != main) {
                return Ok(quick);
            }
            if started.elapsed() >= ELEMENT_DEADLINE {
                return Err(E2eError::QuickAskNotOpened {
                    seconds: ELEMENT_DEADLINE.as_secs(),
                });
            }
        }
    }

    /// Saves a PNG of the window as `<artifacts>/<name>.png` and returns its path.
    ///
    /// Without accelerated compositing (the app's choice on a machine without a GPU) WebKitWebDriver's
    /// screenshot waits for the window's next paint, and a window where nothing changes never paints; so a
    /// one-pixel mark in the top-left corner changes (between two almost transparent greys) until the
    /// screenshot is taken, and is removed after.
    pub async fn screenshot(&self, name: &str) -> Result<PathBuf, E2eError> {
        self.client.execute(PAINT_MARK_START, Vec::new()).await?;
        let png = self.client.screenshot().await;
        self.client.execute(PAINT_MARK_STOP, Vec::new()).await?;
        let png = png?;
        let dir = artifacts_dir();
        std::fs::create_dir_all(&dir)
            .map_err(E2eError::io(format!("cannot create {}", dir.display())))?;
        let path = dir.join(format!("{name}.png"));
        std::fs::write(&path, png)
            .map_err(E2eError::io(format!("cannot write {}", path.display())))?;
        Ok(path)
    }

    /// The PID of the app process (tauri-driver started it; it is the `pi-desktop` with this home).
    pub fn app_pid(&self) -> Result<i32, E2eError> {
        self.process
            .pid()
            .ok_or_else(|| E2eError::AppProcessNotFound {
                home: self.home.path().to_path_buf(),
            })
    }

    /// Kills the app with SIGKILL, as a crash would, waits until it is gone, then ends the WebDriver
    /// session and stops tauri-driver. Returns the home, so the app can be started again on its data
    /// with [`AppUnderTest::launch_in`].
    pub async fn kill(self) -> Result<TempDir, E2eError> {
        self.stop_app_with(nix::sys::signal::Signal::SIGKILL).await
    }

    /// Asks the app to quit with SIGTERM, as a session logout does (the app exits through its normal exit
    /// path and saves its window state), waits until it is gone, then ends the session and stops
    /// tauri-driver. Returns the home for [`AppUnderTest::launch_in`].
    pub async fn terminate(self) -> Result<TempDir, E2eError> {
        self.stop_app_with(nix::sys::signal::Signal::SIGTERM).await
    }

    /// Starts the app binary once more, directly (not through WebDriver), with the same environment as this
    /// launch (home folders, [`LaunchOptions::envs`]; the display comes from the test's own environment), as a
    /// user launching the app a second time would. Its stdout and stderr are piped.
    pub fn spawn_second_launch(&self) -> Result<Child, E2eError> {
        let application = app_binary();
        Command::new(&application)
            .envs(self.envs.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(E2eError::io(format!(
                "cannot start {}",
                application.display()
            )))
    }

    async fn stop_app_with(self, signal: nix::sys::signal::Signal) -> Result<TempDir, E2eError> {
        let pid = self.app_pid()?;
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal)
            .map_err(|source| E2eError::AppKill { pid, source })?;
        wait_until_gone(pid).await?;
        let Self {
            client,
            mut driver,
            home,
            ..
        } = self;
        // The browser behind the session is gone, so WebKitWebDriver may answer the delete with an
        // error; the session is ended either way, and the driver must still be stopped.
        let _ended = client.close().await;
        driver.stop()?;
        Ok(home)
    }

    /// Ends the WebDriver session, stops tauri-driver and makes sure the app process is gone, so no app outlives
    /// its test (and the next launch never meets this one, for example as the owner of the single-instance name).
    /// Ending the session does not always end the app (it can stay running, orphaned, until the X server goes), so
    /// an app still running then gets SIGTERM and is waited for. It saves its window state then, but only
    /// [`AppUnderTest::terminate`] guarantees that.
    pub async fn close(mut self) -> Result<(), E2eError> {
        let pid = self.app_pid().ok();
        let closed = self.client.clone().close().await;
        let stopped = self.driver.stop();
        let ended = match pid {
            Some(pid) => end_app(pid).await,
            None => Ok(()),
        };
        closed?;
        stopped?;
        ended
    }
}

/// Waits briefly for the app `pid` to exit on its own, then sends SIGTERM and waits for it to be gone.
async fn end_app(pid: i32) -> Result<(), E2eError> {
    if wait_for_exit_within(pid, LINGER_DEADLINE).await {
        return Ok(());
    }
    match nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGTERM,
    ) {
        // ESRCH: it exited in the meantime.
        Ok(()) | Err(nix::errno::Errno::ESRCH) => wait_until_gone(pid).await,
        Err(source) => Err(E2eError::AppKill { pid, source }),
    }
}

/// Whether the process `pid` exited within `deadline`.
async fn wait_for_exit_within(pid: i32, deadline: Duration) -> bool {
    let started = Instant::now();
    while process::is_running(pid) {
        if started.elapsed() > deadline {
            return false;
        }
        tokio::time::sleep(EXIT_POLL).await;
    }
    true
}

/// Waits until the process `pid` has exited, at most [`EXIT_DEADLINE`].
async fn wait_until_gone(pid: i32) -> Result<(), E2eError> {
    if wait_for_exit_within(pid, EXIT_DEADLINE).await {
        Ok(())
    } else {
        Err(E2eError::AppStillRunning {
            pid,
            seconds: EXIT_DEADLINE.as_secs(),
        })
    }
}

/// Environment that points every per-user folder of the app into `home`.
/// An empty home folder for one launch of the app, removed when dropped; a test fills it first (settings, a
/// store) when the app must start with something, then passes it to [`AppUnderTest::launch_in`].
pub fn new_home() -> Result<TempDir, E2eError> {
    tempfile::Builder::new()
        .prefix("pi-desktop-e2e-home-")
        .tempdir()
        .map_err(E2eError::io("cannot create a home folder for the app"))
}

fn isolated_home_envs(home: &Path) -> Vec<(String, String)> {
    let folder = |name: &str| home.join(name).display().to_string();
    vec![
        ("HOME".to_owned(), home.display().to_string()),
        ("XDG_DATA_HOME".to_owned(), folder(".local/share")),
        ("XDG_CONFIG_HOME".to_owned(), folder(".config")),
        ("XDG_CACHE_HOME".to_owned(), folder(".cache")),
    ]
}

/// A session bus address where no bus ever listens, inside `home`: by default the app under test sees no D-Bus
/// session, as on CI, whatever the session of the person running the tests (so a Pi Desktop they have open never
/// takes over a test's launch as its single instance, and their keychain is never read). A test that needs a bus
/// starts its own and sets `DBUS_SESSION_BUS_ADDRESS` in [`LaunchOptions::envs`].
fn no_session_bus_env(home: &Path) -> (String, String) {
    (
        "DBUS_SESSION_BUS_ADDRESS".to_owned(),
        format!("unix:path={}", home.join("no-session-bus").display()),
    )
}

/// The repository root: this crate lives in `tests/e2e`.
fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn app_binary() -> PathBuf {
    std::env::var_os("PI_DESKTOP_APP").map_or_else(
        || repository_root().join("target/debug/pi-desktop"),
        PathBuf::from,
    )
}

fn tauri_driver_binary() -> PathBuf {
    std::env::var_os("TAURI_DRIVER").map_or_else(|| PathBuf::from("tauri-driver"), PathBuf::from)
}

fn artifacts_dir() -> PathBuf {
    std::env::var_os("PI_E2E_ARTIFACTS")
        .map_or_else(|| repository_root().join("artifacts/e2e"), PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_per_user_folder_of_the_app_is_inside_its_home() {
        let home = Path::new("/tmp/e2e-home");
        let envs = isolated_home_envs(home);
        let names: Vec<&str> = envs.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            ["HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"]
        );
        for (name, value) in &envs {
            assert!(Path::new(value).starts_with(home), "{name}={value}");
        }
    }

    #[test]
    fn the_default_session_bus_is_a_socket_inside_the_home_that_nothing_listens_on() {
        let home = tempfile::tempdir().unwrap();

        let (name, value) = no_session_bus_env(home.path());

        assert_eq!(name, "DBUS_SESSION_BUS_ADDRESS");
        let socket = value.strip_prefix("unix:path=").unwrap();
        assert!(Path::new(socket).starts_with(home.path()), "{value}");
        assert!(!Path::new(socket).exists(), "{value}");
    }
}
