//! Shared pieces of the end-to-end tests.

#[allow(dead_code, reason = "shared with the benchmarks, which use more of it")]
pub(crate) mod app_processes;
pub(crate) mod long_answer;
pub(crate) mod model_server;
pub(crate) mod notification_server;
pub(crate) mod page_poll;
pub(crate) mod session_bus;
pub(crate) mod stop;
pub(crate) mod stored_history;
