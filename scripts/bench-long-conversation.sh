#!/usr/bin/env bash
# A conversation of 10,000 messages (1,000 tool calls) in the real window: opening it, scrolling it from top to
# bottom, and the app's memory with it open, reported and never asserted. Builds the app like
# scripts/test-e2e.sh, then runs tests/e2e/examples/long_conversation_bench.rs under Xvfb. Arguments go to the
# benchmark: --messages N (default 10000), --runs N (default 1), --step PX (scrolled per frame, default 1000),
# --passes N (scrolls per run), --style RULES (CSS added before the scroll), --drag (the scrollbar's thumb dragged
# from top to bottom with the X pointer instead).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/setup.sh"
source "$REPO_ROOT/scripts/lib/build.sh"

setup_tests
run_app_example long_conversation_bench "$@"
