#!/usr/bin/env bash
# Regenerates the app icons in icons/ from icons/icon-source.png with the Tauri CLI (`tauri icon`), keeping
# only what tauri.conf.json's bundle.icon lists: plain PNG sizes for the Linux hicolor theme (32, 64, 128,
# 256, and 512 as icon.png), icon.icns (macOS) and icon.ico (Windows).
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/common.sh"

tauri="$UI_DIR/node_modules/.bin/tauri"
[[ -x "$tauri" ]] || die "no Tauri CLI at $tauri: run npm ci in ui/ first"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$tauri" icon "$REPO_ROOT/icons/icon-source.png" -o "$work/all"
"$tauri" icon "$REPO_ROOT/icons/icon-source.png" --png 32,64,128,256,512 -o "$work/png"
for size in 32 64 128 256; do
  cp "$work/png/${size}x${size}.png" "$REPO_ROOT/icons/"
done
cp "$work/png/512x512.png" "$REPO_ROOT/icons/icon.png"
cp "$work/all/icon.icns" "$work/all/icon.ico" "$REPO_ROOT/icons/"
step "icons/: $(cd "$REPO_ROOT/icons" && ls | tr '\n' ' ')"
