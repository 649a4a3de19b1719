# Shared by the scripts in scripts/: repository paths, messages, privileged apt-get.
# Source it; it sets -euo pipefail for the caller.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
UI_DIR="$REPO_ROOT/ui"
export REPO_ROOT UI_DIR

# cargo-installed tools (tauri-driver) live here; make sure they are found even in a fresh shell.
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
note() { printf '    %s\n' "$*"; }
die() {
  printf '\nerror: %s\n' "$*" >&2
  exit 1
}

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root for: $* (run as root or install sudo)"
  fi
}

# The target dir cargo uses for this workspace (honours CARGO_TARGET_DIR like cargo does).
cargo_target_dir() {
  printf '%s\n' "${CARGO_TARGET_DIR:-$REPO_ROOT/target}"
}
