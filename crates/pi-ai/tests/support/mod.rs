//! Test support shared by the provider tests and `examples/provider-replay.rs`.

#![allow(dead_code, reason = "each test binary uses a different subset")]

pub(crate) mod fixture_run;
pub(crate) mod replay_server;
pub(crate) mod scripts;
pub(crate) mod trace_compare;
