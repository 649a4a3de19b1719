#!/usr/bin/env bash
# Layer 3 alone: the UI's type check, unit tests and headless-Chromium tests.
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/setup.sh"
source "$REPO_ROOT/scripts/lib/ladder.sh"

setup_tests
layer_3_ui
