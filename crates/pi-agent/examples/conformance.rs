//! Conformance harness command (work in progress).

fn main() {}
