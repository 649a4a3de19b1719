# Builds the app the way users run it: the UI into ui/dist, then the binary with ui/dist embedded.
# Source scripts/lib/common.sh first.

build_ui() {
  step "build: ui/dist (vite)"
  (cd "$UI_DIR" && npm run --silent build)
}

# A debug build: it shares its compiled dependencies with the test ladder, and the release profile
# (thin LTO) would add minutes for no benefit here. `custom-protocol` embeds ui/dist in the binary.
build_app() {
  step "build: pi-desktop with the UI embedded (cargo build -p pi-desktop --features custom-protocol)"
  (cd "$REPO_ROOT" && cargo build -p pi-desktop --features custom-protocol)
  APP_BINARY="$(cargo_target_dir)/debug/pi-desktop"
  export APP_BINARY
}

# Builds the UI and the app like the end-to-end layer, then runs the e2e crate's example $1 (a benchmark)
# under Xvfb with the remaining arguments.
run_app_example() {
  local example="$1"
  shift
  build_ui
  build_app
  step "bench: cargo run -p pi-desktop-e2e --features e2e --example $example -- $*"
  cd "$REPO_ROOT"
  PI_DESKTOP_APP="$APP_BINARY" xvfb-run -a -s "-screen 0 1280x800x24" \
    cargo run -q -p pi-desktop-e2e --features e2e --example "$example" -- "$@"
}
