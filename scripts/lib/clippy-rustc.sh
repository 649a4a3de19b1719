#!/usr/bin/env bash
# Clippy's lints during a real build. Cargo runs this as RUSTC_WORKSPACE_WRAPPER, for the workspace's own crates
# only: "$1" is rustc and the rest are its arguments for one crate. clippy-driver (CLIPPY_DRIVER, the active
# toolchain's) compiles the crate like rustc and lints it like `cargo clippy -- -D warnings`; the dependencies are
# built by plain rustc, the same artifacts `cargo test` uses afterwards.
set -euo pipefail
exec "${CLIPPY_DRIVER:?must name the clippy-driver of the active toolchain}" "$@" -D warnings
