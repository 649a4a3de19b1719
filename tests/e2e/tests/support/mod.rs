//! Shared pieces of the end-to-end tests.

pub(crate) mod long_answer;
pub(crate) mod model_server;
pub(crate) mod notification_server;
pub(crate) mod session_bus;
pub(crate) mod stop;
