#!/usr/bin/env bash
# The window's responsiveness while a long Markdown answer arrives as fast as loopback allows, reported and
# never asserted. Builds the app like scripts/test-e2e.sh, then runs tests/e2e/examples/long_answer_bench.rs
# under Xvfb. Arguments go to the benchmark: --mb N (answer size, default 1), --runs N (default 3).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/setup.sh"
source "$REPO_ROOT/scripts/lib/build.sh"

setup_tests
run_app_example long_answer_bench "$@"
