//! Provider adapter tests on a loopback replay server: the shared conformance fixtures and fault tests.

mod support;

#[path = "providers/conformance.rs"]
mod conformance;
#[path = "providers/faults.rs"]
mod faults;
