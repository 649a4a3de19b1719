#!/usr/bin/env bash
# Layer 4 alone: builds the UI and the app, then runs the WebDriver tests under Xvfb.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/setup.sh"
source "$REPO_ROOT/scripts/lib/build.sh"
source "$REPO_ROOT/scripts/lib/ladder.sh"

setup_tests
layer_4_e2e
