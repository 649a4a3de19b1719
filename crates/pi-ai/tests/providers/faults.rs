//! Fault tests.
