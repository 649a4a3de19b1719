//! Provider adapter tests on a loopback replay server: the shared conformance fixtures, the real-capture
//! corpus and fault tests.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail loudly"
)]

mod support;

#[path = "providers/captures.rs"]
mod captures;
#[path = "providers/conformance.rs"]
mod conformance;
#[path = "providers/faults.rs"]
mod faults;
#[path = "providers/registry.rs"]
mod registry;
