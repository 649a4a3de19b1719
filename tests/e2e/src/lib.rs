//! The harness for end-to-end tests of the real `pi-desktop` binary.
//!
//! [`AppUnderTest::launch`] starts `tauri-driver` on free loopback ports, which starts
//! `WebKitWebDriver`, which starts the app; the test then drives the window over WebDriver with
//! [`fantoccini`]. Each app gets a fresh home for its data, config and logs, so tests never touch the
//! user's files or each other. [`AppUnderTest::close`] ends the session and stops the driver with
//! SIGTERM (a SIGKILLed driver leaves `WebKitWebDriver` holding its port). [`AppUnderTest::kill`] SIGKILLs
//! the app itself, as a crash would, and [`AppUnderTest::terminate`] sends it SIGTERM, as a logout would (the
//! app exits gracefully and saves its window state); both return its home for [`AppUnderTest::launch_in`].
//! [`AppUnderTest::spawn_second_launch`] starts the binary once more with the same environment.
//! Apps see no D-Bus session bus (an address where nothing listens) unless a test sets
//! `DBUS_SESSION_BUS_ADDRESS` itself: tests behave the same on CI and on a desktop with a session.
//!
//! The tests themselves live in `tests/e2e.rs` and only build with the `e2e` feature; they need a
//! display (`xvfb-run`), `tauri-driver`, `WebKitWebDriver` and a binary built with the UI embedded
//! (`cargo build -p pi-desktop --features custom-protocol`). `scripts/test-e2e.sh` prepares all that.
//!
//! Configuration, from the environment (all optional):
//! - `PI_DESKTOP_APP`: the app binary (default: `target/debug/pi-desktop` in this workspace);
//! - `TAURI_DRIVER`: the `tauri-driver` binary (default: `tauri-driver` on `PATH`);
//! - `PI_E2E_ARTIFACTS`: where screenshots go (default: `artifacts/e2e` at the repository root).

mod app;
mod driver;
mod error;
mod process;

pub use app::{AppUnderTest, LaunchOptions, LaunchTimings, new_home};
pub use error::E2eError;
