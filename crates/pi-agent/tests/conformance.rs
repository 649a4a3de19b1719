//! Conformance suite (work in progress).
