//! Provider adapter tests on a loopback replay server: the shared conformance fixtures and fault tests.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail loudly"
)]

mod support;

#[path = "providers/conformance.rs"]
mod conformance;
#[path = "providers/faults.rs"]
mod faults;
#[path = "providers/registry.rs"]
mod registry;
