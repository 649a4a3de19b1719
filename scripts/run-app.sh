#!/usr/bin/env bash
# Installs what Pi Desktop needs (first run only), builds the UI and the app, and opens the window.
# Arguments are passed to the app. Needs a display; on a headless machine: xvfb-run -a scripts/run-app.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
source "$REPO_ROOT/scripts/lib/setup.sh"
source "$REPO_ROOT/scripts/lib/build.sh"

setup_app
build_ui
build_app

if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  die "no display (DISPLAY and WAYLAND_DISPLAY are unset); on a headless machine run: xvfb-run -a $0"
fi
step "run: $APP_BINARY (logs: stderr and ~/.local/share/dev.pi.desktop/logs)"
exec "$APP_BINARY" "$@"
