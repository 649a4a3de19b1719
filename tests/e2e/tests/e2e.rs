//! End-to-end tests of the real app over WebDriver, one module per area. Each test launches its own
//! app (`AppUnderTest::launch`) and closes it; screenshots go to `artifacts/e2e/`.
//! Run them with `scripts/test-e2e.sh` (Xvfb, tauri-driver, the app built with the UI embedded).

// Helpers shared by tests (the loopback server, launch and send steps) fail by panicking, like the tests.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed step fails the test"
)]

// Shared pieces: the app pointed at a loopback model server, Stop, the long answer, the session bus and a
// notification server on it.
mod support;

// The app as an installed desktop app: remembered window geometry, a single instance.
mod app_metadata;

// Attachments and usage: an image and a PDF reaching the model, the no-image-input notice, tokens and cost.
mod attachments;

// A conversation against a scripted model: tools, Stop, provider errors, hostile model output.
mod chat;

// A connection that never hangs or fails silently: the idle timeout, a retried 429, a refused key in Chinese.
mod connection;

// Exports through the save dialog (answered by the app's e2e build): written where chosen, the folder offered.
mod dialogs;

// A crash (SIGKILL) while an answer streams, and the restart on the same data.
mod crash;

// A history longer than the sidebar's first page: listed page by page, all of it searchable.
mod history;

// The first run with nothing configured: the setup card, a local server found, a custom server tested.
mod first_run;

// The loop inspector: each run's turns and exit, kept after a restart, and the replay of a run.
mod inspector;

// A conversation of 600 exchanges: opened at its end, all of its beginning there when scrolled to the top.
mod long_conversation;

// A long answer that arrives fast: the window keeps answering, shows all of it, and Stop works.
mod long_answer;

// The window's one live stream: a reload mid-answer, and two conversations answering at once.
mod live_stream;

// Versions and branches of messages: regenerate and switch versions, edit into a branch, continue a cut-off answer.
mod message_versions;

// An MCP tool call against the real reference server: the approval card, Allow once, Deny, Stop.
mod mcp_approval;

// System notifications of a conversation out of sight, on a private session bus with a notification server.
mod notifications;

// The quick-ask window: the global shortcut opens it, its question is answered, the main window continues it.
mod quick_ask;

// Settings → Tools & servers against the real reference server: add, turn a tool off, remove, quit.
mod mcp_settings;

// Steering and follow-ups from the composer: delivered where the loop injects them, cancelled, kept after Stop.
mod steering;

// The first window: layout, idle state, the composer.
mod window;
