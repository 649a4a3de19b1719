#!/usr/bin/env bash
# Layer 5 alone: builds the .deb with the Tauri CLI, installs it (root or sudo), starts the installed app
# under Xvfb (its window class, then the WebDriver window test), and removes the package again.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/setup.sh"
# The WebDriver window test's cargo selection (E2E_CARGO_ARGS) is the end-to-end layer's.
source "$REPO_ROOT/scripts/lib/build.sh"
source "$REPO_ROOT/scripts/lib/package.sh"
source "$REPO_ROOT/scripts/lib/ladder.sh"

setup_tests
layer_5_package
