//! Helpers shared by the integration tests.

pub(crate) mod envelopes;
pub(crate) mod home;
pub(crate) mod pdf;
pub(crate) mod settings;
