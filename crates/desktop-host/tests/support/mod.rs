//! Helpers shared by the integration tests.

pub(crate) mod envelopes;
pub(crate) mod home;
pub(crate) mod openai_server;
pub(crate) mod pdf;
