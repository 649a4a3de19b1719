#!/usr/bin/env bash
# Benchmarks of the real app (cold start, idle memory, Stop -> Send), reported and never asserted.
# Builds the app like scripts/test-e2e.sh, then runs tests/e2e/examples/app_bench.rs under Xvfb.
# Arguments go to the benchmark: --runs N (cold starts, default 5), --stops N (default 5), --settle SECONDS.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/setup.sh"
source "$REPO_ROOT/scripts/lib/build.sh"

setup_tests
build_ui
build_app
step "bench: cargo run -p pi-desktop-e2e --features e2e --example app_bench -- $*"
cd "$REPO_ROOT"
PI_DESKTOP_APP="$APP_BINARY" xvfb-run -a -s "-screen 0 1280x800x24" \
  cargo run -q -p pi-desktop-e2e --features e2e --example app_bench -- "$@"
