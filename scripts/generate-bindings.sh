#!/usr/bin/env bash
# Writes the TypeScript bindings of the IPC types into ui/src/ipc/bindings/ (from the Rust types that derive
# `ts_rs::TS` in desktop-host and src-tauri), replacing what is there. `--check` writes them into a temporary
# folder instead and fails, naming the files, when the committed ones differ (layer 1 of the test ladder).
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

BINDINGS="$REPO_ROOT/ui/src/ipc/bindings"

export_bindings() {
  # ts-rs writes each exported type when its generated `export_bindings_*` test runs.
  (cd "$REPO_ROOT" && TS_RS_EXPORT_DIR="$1" cargo test -q --workspace --lib export_bindings >/dev/null)
}

if [[ "${1:-}" == "--check" ]]; then
  fresh="$(mktemp -d)"
  trap 'rm -rf "$fresh"' EXIT
  export_bindings "$fresh" || die "the bindings were not exported (the build or an export test failed)"
  if ! diff -r "$fresh" "$BINDINGS" >/dev/null; then
    diff -r "$fresh" "$BINDINGS" | head -40 >&2 || true
    die "ui/src/ipc/bindings is stale: run ./scripts/generate-bindings.sh and commit the result"
  fi
  step "bindings: ui/src/ipc/bindings matches the Rust types"
else
  # Written aside first, so a build that fails leaves the committed bindings as they are.
  fresh="$(mktemp -d)"
  trap 'rm -rf "$fresh"' EXIT
  export_bindings "$fresh" || die "the bindings were not exported (the build or an export test failed)"
  rm -rf "$BINDINGS"
  cp -r "$fresh" "$BINDINGS"
  step "bindings: written to ui/src/ipc/bindings"
fi
