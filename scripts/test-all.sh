#!/usr/bin/env bash
# Installs what the tests need (first run only) and runs every test, in order, stopping at the first
# failure:
#   1. cargo fmt --check, clippy -D warnings (during a build: scripts/lib/ladder.sh)
#   2. cargo test --workspace
#   3. the UI: TypeScript check, vitest unit tests, the built UI in headless Chromium with mockIPC
#   4. end to end: the real pi-desktop under Xvfb over WebDriver (tauri-driver + WebKitWebDriver)
#   5. packaging: the .deb built by `tauri build`, installed, its app started under Xvfb, removed
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/setup.sh"
source "$REPO_ROOT/scripts/lib/build.sh"
source "$REPO_ROOT/scripts/lib/package.sh"
source "$REPO_ROOT/scripts/lib/ladder.sh"

setup_tests
layer_1_lint
layer_2_cargo_test
layer_3_ui
layer_4_e2e
layer_5_package
step "all layers passed (${SECONDS}s)"
