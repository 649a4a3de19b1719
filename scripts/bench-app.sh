#!/usr/bin/env bash
# Benchmarks of the real app (cold start, idle memory against an empty Tauri 2 window, Stop during a held-open
# and a fast stream: click -> connection closed -> Send enabled, and during a running MCP tool: click -> the
# card no longer running -> Send enabled), reported and never asserted.
# Builds the app and src-tauri/examples/empty_window.rs like scripts/test-e2e.sh, then runs
# tests/e2e/examples/app_bench.rs under Xvfb. With PI_DESKTOP_APP and PI_DESKTOP_EMPTY_WINDOW set, those
# binaries (a release build, say) are measured instead.
# Arguments go to the benchmark: --runs N (cold starts, default 5), --stops N (default 5), --settle SECONDS,
# --quick-ask (each cold start also measures memory with the quick-ask window open).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/setup.sh"
source "$REPO_ROOT/scripts/lib/build.sh"

setup_tests
BENCH_ALSO_BUILD=(empty_window)
run_app_example app_bench "$@"
