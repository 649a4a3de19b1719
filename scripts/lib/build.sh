# Builds the app the way users run it: the UI into ui/dist, then the binary with ui/dist embedded.
# Source scripts/lib/common.sh first.

build_ui() {
  step "build: ui/dist (vite)"
  (cd "$UI_DIR" && npm run --silent build)
}

# A debug build: the release profile (thin LTO) would add minutes for no benefit here. `custom-protocol`
# embeds ui/dist in the binary.
build_app() {
  step "build: pi-desktop with the UI embedded (cargo build -p pi-desktop --features custom-protocol)"
  (cd "$REPO_ROOT" && cargo build -p pi-desktop --features custom-protocol)
  APP_BINARY="$(cargo_target_dir)/debug/pi-desktop"
  export APP_BINARY
}

# The cargo selection of the end-to-end layer. Cargo resolves features once per invocation, over the packages
# selected and (when a test target is built) their dev-dependencies, so a narrower `-p` selection or a build
# without test targets gives tokio, syn, serde_json and others other features than `cargo test --workspace`,
# and most of the dependencies would be compiled a second time. With the whole workspace and a test target
# selected, only tauri, its plugins and the app are compiled again, for `custom-protocol`.
E2E_CARGO_ARGS=(--workspace --features pi-desktop/custom-protocol,pi-desktop-e2e/e2e)

# build_app for the WebDriver tests: the app binary and the e2e test binary, sharing the test ladder's
# compiled dependencies.
build_app_for_e2e() {
  step "build: pi-desktop with the UI embedded, and the WebDriver tests (cargo build ${E2E_CARGO_ARGS[*]} --bins --test e2e)"
  (cd "$REPO_ROOT" && cargo build "${E2E_CARGO_ARGS[@]}" --bins --test e2e)
  APP_BINARY="$(cargo_target_dir)/debug/pi-desktop"
  export APP_BINARY
}

# Builds the UI and the app like the end-to-end layer (the same cargo selection, so the same compiled
# dependencies), then runs the e2e crate's example $1 (a benchmark) under Xvfb with the remaining arguments.
# With PI_DESKTOP_APP set, that binary is measured instead of the one built here. The examples named in
# BENCH_ALSO_BUILD (an array) are built beside it.
run_app_example() {
  local example="$1"
  shift
  local examples=(--example "$example")
  local also
  for also in "${BENCH_ALSO_BUILD[@]}"; do
    examples+=(--example "$also")
  done
  build_ui
  step "build: pi-desktop with the UI embedded, and the benchmark (cargo build ${E2E_CARGO_ARGS[*]} --bins ${examples[*]})"
  (cd "$REPO_ROOT" && cargo build "${E2E_CARGO_ARGS[@]}" --bins "${examples[@]}")
  local target
  target="$(cargo_target_dir)"
  step "bench: $example $*"
  cd "$REPO_ROOT"
  PI_DESKTOP_APP="${PI_DESKTOP_APP:-$target/debug/pi-desktop}" xvfb-run -a -s "-screen 0 1280x800x24" \
    "$target/debug/examples/$example" "$@"
}
