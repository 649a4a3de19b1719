#!/usr/bin/env bash
# Benchmarks of the real app (cold start, idle memory, Stop -> Send), reported and never asserted.
# Builds the app like scripts/test-e2e.sh, then runs tests/e2e/examples/app_bench.rs under Xvfb.
# Arguments go to the benchmark: --runs N (cold starts, default 5), --stops N (default 5), --settle SECONDS,
# --quick-ask (each cold start also measures memory with the quick-ask window open).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/setup.sh"
source "$REPO_ROOT/scripts/lib/build.sh"

setup_tests
run_app_example app_bench "$@"
