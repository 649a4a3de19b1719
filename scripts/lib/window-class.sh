#!/usr/bin/env bash
# Run, not sourced: window-class.sh BINARY. Starts BINARY on the current X display with a throwaway home,
# waits (at most 60 s) until its "Pi Desktop" window is mapped, prints that window's WM_CLASS strings
# ("instance" "class") and stops the app. Fails when no window appears.
set -euo pipefail

binary="$1"
home="$(mktemp -d -t pi-desktop-package-home-XXXXXX)"
app_pid=""
# The script's status is the window check's: WebKit's processes may still be writing into the throwaway home for
# a moment after the app has exited, and a home left behind is reported, not a failed check.
cleanup() {
  local status=$?
  if [[ -n "$app_pid" ]] && kill -0 "$app_pid" 2>/dev/null; then
    kill -TERM "$app_pid" 2>/dev/null || true
    wait "$app_pid" 2>/dev/null || true
  fi
  rm -rf "$home" 2>/dev/null || printf 'left behind (still being written): %s\n' "$home" >&2
  exit "$status"
}
trap cleanup EXIT

# A dead session bus: the app then skips its single-instance hand-over (which would pass this launch to a
# Pi Desktop the user is running) and starts on its own.
HOME="$home" XDG_DATA_HOME="$home/.local/share" XDG_CONFIG_HOME="$home/.config" \
  XDG_CACHE_HOME="$home/.cache" DBUS_SESSION_BUS_ADDRESS="unix:path=$home/no-session-bus" \
  "$binary" >"$home/app.log" 2>&1 &
app_pid=$!

# xdotool --sync blocks until a matching window is mapped; timeout bounds it.
if ! window="$(timeout 60 xdotool search --sync --onlyvisible --name '^Pi Desktop$' | head -n1)" ||
  [[ -z "$window" ]]; then
  printf 'no "Pi Desktop" window within 60 s; the app wrote:\n' >&2
  cat "$home/app.log" >&2
  exit 1
fi
xprop -id "$window" WM_CLASS | sed 's/^WM_CLASS(STRING) = //'
