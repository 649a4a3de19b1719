# The test ladder's layers. Each layer runs its checks in order, stops at the first failure with a
# message naming the check, and ends with a plain "N passed, N failed" line after the runner's own.
# Source scripts/lib/common.sh, scripts/lib/build.sh and scripts/lib/package.sh first.

LAYER_NAME=""
LAYER_PASSED=0

begin_layer() {
  LAYER_NAME="$1"
  LAYER_PASSED=0
  LAYER_STARTED=$SECONDS
  step "layer $LAYER_NAME"
}

# check "description" command...: runs one check of the current layer.
check() {
  local description="$1"
  shift
  note "-> $description"
  if "$@"; then
    LAYER_PASSED=$((LAYER_PASSED + 1))
  else
    local status=$?
    printf '\nlayer %s: %d passed, 1 failed\n' "$LAYER_NAME" "$LAYER_PASSED"
    die "layer $LAYER_NAME failed at: $description (exit $status); the layers after it did not run"
  fi
}

end_layer() {
  printf '\nlayer %s: %d passed, 0 failed (%ds)\n' "$LAYER_NAME" "$LAYER_PASSED" $((SECONDS - LAYER_STARTED))
}

in_repo() { (cd "$REPO_ROOT" && "$@"); }
in_ui() { (cd "$UI_DIR" && "$@"); }

CLIPPY_CARGO_ARGS=(--workspace --all-targets --features pi-desktop-e2e/e2e)

# `cargo clippy` type-checks every dependency first (metadata only, which no later step can use), and the bindings
# check and layer 2 then compile them all for real. As a build whose workspace crates go through clippy-driver
# (scripts/lib/clippy-rustc.sh), the lints and their `-D warnings` are clippy's own and the dependencies are compiled
# once, for the bindings check and `cargo test` to reuse; the workspace's crates are compiled twice instead (cargo
# keeps the wrapped ones apart: the wrapper is part of their hash). From a clean clone on a 2-core machine, layers 1
# and 2 took 1,388 s this way against 1,528 s with `cargo clippy` (one run each), whose check pass alone was 671 s.
clippy_build() {
  local driver
  driver="$(rustc --print sysroot)/bin/clippy-driver"
  if [[ ! -x "$driver" ]]; then
    printf 'no clippy-driver at %s: rustup component add clippy\n' "$driver" >&2
    return 1
  fi
  CLIPPY_DRIVER="$driver" RUSTC_WORKSPACE_WRAPPER="$REPO_ROOT/scripts/lib/clippy-rustc.sh" \
    cargo build "${CLIPPY_CARGO_ARGS[@]}"
}

layer_1_lint() {
  begin_layer "1 (format and lint)"
  check "cargo fmt --all --check" in_repo cargo fmt --all --check
  # The WebDriver tests build only with their `e2e` feature; one invocation lints them with the rest.
  check "clippy -D warnings on every target of the workspace (cargo build ${CLIPPY_CARGO_ARGS[*]}, linted by clippy-driver)" \
    in_repo clippy_build
  check "the TypeScript bindings match the Rust types (scripts/generate-bindings.sh --check)" \
    in_repo ./scripts/generate-bindings.sh --check
  end_layer
}

layer_2_cargo_test() {
  begin_layer "2 (cargo test)"
  check "cargo test --workspace" in_repo cargo test --workspace
  # Without a keychain session the keychain binary only says it skipped; here it runs against a real,
  # unlocked gnome-keyring on a private D-Bus session and fails on any keychain error.
  check "keychain tests in a private D-Bus session (gnome-keyring)" \
    in_repo crates/desktop-host/tests/keychain-session.sh cargo test --workspace --test secrets_keychain
  end_layer
}

layer_3_ui() {
  begin_layer "3 (UI: types, unit tests, headless Chromium)"
  check "TypeScript type check (tsc --noEmit, strict)" in_ui npm run --silent typecheck
  check "unit tests (vitest)" in_ui npm run --silent test:unit
  check "build ui/dist (vite build)" in_ui npm run --silent build
  check "browser tests of ui/dist in headless Chromium (vitest + playwright-core)" \
    in_ui npm run --silent test:browser
  end_layer
}

# WebDriver tests: Xvfb display, tauri-driver on free ports, WebKitWebDriver, the real binary.
run_e2e_tests() {
  in_repo env PI_DESKTOP_APP="$APP_BINARY" \
    xvfb-run -a -s "-screen 0 1280x800x24" \
    cargo test "${E2E_CARGO_ARGS[@]}" --test e2e -- --test-threads=1
}

layer_4_e2e() {
  begin_layer "4 (end to end: the real app over WebDriver under Xvfb)"
  check "build ui/dist (vite build)" in_ui npm run --silent build
  check "build pi-desktop with the UI embedded, and the WebDriver tests" build_app_for_e2e
  check "WebDriver tests (cargo test --test e2e)" run_e2e_tests
  note "screenshots: $REPO_ROOT/artifacts/e2e/"
  end_layer
}

# The .deb as users get it: built by the Tauri CLI, installed with dpkg, the installed app started under
# Xvfb, then removed again (also when a check fails: install_deb sets an exit trap).
layer_5_package() {
  begin_layer "5 (packaging: build the .deb, install it, start the installed app, remove it)"
  check "root for dpkg (root, or sudo)" check_can_be_root
  check "$DEB_PACKAGE is not installed yet" check_not_installed
  check "build the .deb (tauri build --bundles deb: UI, release binary, package)" build_deb
  check "control file: name, version from Cargo.toml, architecture, Depends on WebKitGTK 4.1, GTK 3 and ayatana-appindicator" \
    check_deb_control
  check "files: binary, desktop entry, hicolor icons" check_deb_files
  check "its dependencies are installed Debian packages" check_depends_installed
  check "install it (dpkg -i)" install_deb
  check "installed: executable, valid desktop entry (Name, Exec, Icon, Categories), icons at their sizes" \
    check_installed_files
  check "the installed app opens its window; WM_CLASS matches StartupWMClass" check_window_class
  check "WebDriver window test against $INSTALLED_BINARY (window, embedded UI, IPC)" \
    check_installed_app_over_webdriver
  check "remove it (dpkg -r): binary and desktop entry gone" check_removed
  end_layer
}
