#!/bin/sh
# Runs a command inside a private D-Bus session whose Secret Service is a freshly created, unlocked
# gnome-keyring, so the keychain tests talk to a real keychain without touching the user's own.
#
#   crates/desktop-host/tests/keychain-session.sh cargo test -p desktop-host --test secrets_keychain
#
# The command sees PI_DESKTOP_KEYCHAIN_SESSION=1; the keychain test binary treats that variable as a promise that
# the service works and fails when it does not. Needs the Debian packages dbus, gnome-keyring, libsecret-tools.
# Exits with the command's status, or 2 when the session itself cannot be set up.
set -eu

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi

if [ "${PI_DESKTOP_KEYCHAIN_INNER:-}" != 1 ]; then
    for tool in dbus-run-session dbus-send gnome-keyring-daemon secret-tool; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            echo "keychain-session: $tool not found (apt-get install dbus gnome-keyring libsecret-tools)" >&2
            exit 2
        fi
    done
    PI_DESKTOP_KEYCHAIN_INNER=1 exec dbus-run-session -- "$0" "$@"
fi

# Inside the private bus. The keyring files go to a temporary folder that is removed afterwards.
keyring_root=$(mktemp -d "${TMPDIR:-/tmp}/pi-desktop-keyring.XXXXXX")
keyring_pid=""
cleanup() {
    # Only the daemon this script started, by its pid.
    if [ -n "$keyring_pid" ]; then
        kill "$keyring_pid" 2>/dev/null || true
        wait "$keyring_pid" 2>/dev/null || true
    fi
    rm -rf "$keyring_root"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export XDG_DATA_HOME="$keyring_root/data"
export XDG_RUNTIME_DIR="$keyring_root/run"
mkdir -p "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

fail() {
    echo "keychain-session: $1" >&2
    if [ -s "$keyring_root/daemon.log" ]; then sed 's/^/    daemon: /' "$keyring_root/daemon.log" >&2; fi
    exit 2
}

# --unlock reads the password of the login keyring on stdin and creates that keyring when it does not exist.
# The daemon stays in the foreground of a background job so that this script knows its pid and can wait for it.
printf 'pw' | gnome-keyring-daemon --foreground --unlock --components=secrets >"$keyring_root/daemon.log" 2>&1 &
keyring_pid=$!

# Wait (at most 10 s) until the daemon owns the Secret Service name on this bus. Anything that asked before
# would make D-Bus start a second, locked daemon.
secrets_owned() {
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q 'boolean true'
}
n_polls=0
until secrets_owned; do
    kill -0 "$keyring_pid" 2>/dev/null || fail "gnome-keyring-daemon exited during start-up"
    n_polls=$((n_polls + 1))
    [ "$n_polls" -le 100 ] || fail "gnome-keyring-daemon did not register the Secret Service within 10 s"
    sleep 0.1
done

# Prove the service works before handing over: store, read back and clear one item.
probe_value="probe-$$"
printf '%s' "$probe_value" | secret-tool store --label=pi-desktop-probe pi-desktop-probe "$$" \
    || fail "the Secret Service refused to store an item"
[ "$(secret-tool lookup pi-desktop-probe "$$")" = "$probe_value" ] \
    || fail "the Secret Service did not return the stored item"
secret-tool clear pi-desktop-probe "$$" || fail "the Secret Service did not delete an item"

export PI_DESKTOP_KEYCHAIN_SESSION=1
status=0
"$@" || status=$?
exit "$status"
