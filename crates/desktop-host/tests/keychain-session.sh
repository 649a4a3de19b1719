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
    for tool in dbus-run-session gnome-keyring-daemon secret-tool; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            echo "keychain-session: $tool not found (apt-get install dbus gnome-keyring libsecret-tools)" >&2
            exit 2
        fi
    done
    PI_DESKTOP_KEYCHAIN_INNER=1 exec dbus-run-session -- "$0" "$@"
fi

# Inside the private bus. The keyring files go to a temporary folder that is removed afterwards.
keyring_root=$(mktemp -d "${TMPDIR:-/tmp}/pi-desktop-keyring.XXXXXX")
# The daemon is bound to this private bus and exits when dbus-run-session closes it.
cleanup() {
    rm -rf "$keyring_root"
}
trap cleanup EXIT INT TERM
export XDG_DATA_HOME="$keyring_root/data"
export XDG_RUNTIME_DIR="$keyring_root/run"
mkdir -p "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

# --unlock reads the password of the login keyring on stdin and creates that keyring when it does not exist.
daemon_env=$(printf 'pw' | gnome-keyring-daemon --unlock --components=secrets) || {
    echo "keychain-session: gnome-keyring-daemon did not start" >&2
    exit 2
}
eval "$daemon_env"
export GNOME_KEYRING_CONTROL

# Prove the service answers before handing over: store, read back and clear one item.
probe_value="probe-$$"
printf '%s' "$probe_value" | secret-tool store --label=pi-desktop-probe pi-desktop-probe "$$" || {
    echo "keychain-session: the Secret Service refused to store an item" >&2
    exit 2
}
if [ "$(secret-tool lookup pi-desktop-probe "$$")" != "$probe_value" ]; then
    echo "keychain-session: the Secret Service did not return the stored item" >&2
    exit 2
fi
secret-tool clear pi-desktop-probe "$$"

export PI_DESKTOP_KEYCHAIN_SESSION=1
status=0
"$@" || status=$?
exit "$status"
