#!/usr/bin/env bash
# The boundary between host and window, reported and never asserted: Stop click -> Send enabled, and the latency
# from each delta handed to the model server to its text in the DOM (an answer of N deltas at each offered rate).
# Builds the app like scripts/test-e2e.sh, then runs tests/e2e/examples/boundary_bench.rs under Xvfb. With
# PI_DESKTOP_APP set to an app binary (built with the UI embedded), nothing is built but the benchmark itself,
# which runs that binary.
# Arguments go to the benchmark: --runs N (default 5), --rates A,B,... (deltas a second, default 200), --deltas N
# (default 2000), --only stop|latency (default both).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/setup.sh"
source "$REPO_ROOT/scripts/lib/build.sh"

if [[ -z "${PI_DESKTOP_APP:-}" ]]; then
  setup_tests
  run_app_example boundary_bench "$@"
  exit
fi

[[ -x "$PI_DESKTOP_APP" ]] || die "PI_DESKTOP_APP=$PI_DESKTOP_APP is not an executable file"
command -v xvfb-run >/dev/null 2>&1 || die "xvfb-run not found: run scripts/bench-boundary.sh once without PI_DESKTOP_APP"
ensure_tauri_driver
step "bench: cargo run -p pi-desktop-e2e --features e2e --example boundary_bench -- $* (app: $PI_DESKTOP_APP)"
cd "$REPO_ROOT"
PI_DESKTOP_APP="$(realpath "$PI_DESKTOP_APP")" xvfb-run -a -s "-screen 0 1280x800x24" \
  cargo run -q -p pi-desktop-e2e --features e2e --example boundary_bench -- "$@"
