#!/usr/bin/env bash
# A day without a restart in the real window: 500 runs (each a tool call and an answer) with conversation
# switches, the memory of all app processes, the page's live IPC callbacks and DOM elements along the way,
# reported and never asserted. Builds the app like scripts/test-e2e.sh, then runs
# tests/e2e/examples/day_bench.rs under Xvfb (PI_DESKTOP_APP=/path/to/pi-desktop measures a binary built
# before). Arguments go to the benchmark: --runs N (default 500), --switch-every N (default 10),
# --sample-every N (default 50).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/setup.sh"
source "$REPO_ROOT/scripts/lib/build.sh"

setup_tests
run_app_example day_bench "$@"
