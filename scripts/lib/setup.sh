# Installs what the app and the tests need, idempotently; each part is skipped when already there.
#   setup_app:   Debian build packages for Tauri (webkit2gtk 4.1, ...) and the UI's npm packages.
#   setup_tests: setup_app + Xvfb, Debian's chromium, webkit2gtk-driver, and tauri-driver.
# Source scripts/lib/common.sh first.

# Debian packages Tauri needs to build and run the app (webkit2gtk 4.1 and friends).
APP_PACKAGES=(
  build-essential pkg-config file
  libwebkit2gtk-4.1-dev libssl-dev libxdo-dev libayatana-appindicator3-dev librsvg2-dev
  libdbus-1-dev
  fonts-dejavu-core fonts-noto-cjk
)
# What only the tests add: a virtual display, a browser for the UI tests, the WebKit WebDriver, and a private
# D-Bus session with gnome-keyring for the real keychain tests.
TEST_PACKAGES=(xvfb xauth chromium webkit2gtk-driver dbus gnome-keyring libsecret-tools
  # The packaging test (layer 5): validate the installed desktop entry, find the app's window, read its class.
  desktop-file-utils xdotool x11-utils)

TAURI_DRIVER_VERSION="^2"
MIN_NODE="20.19.0"

check_toolchain() {
  command -v cargo >/dev/null 2>&1 || die "cargo not found: install the Rust toolchain (rustup.rs)"
  cargo fmt --version >/dev/null 2>&1 || die "rustfmt missing: rustup component add rustfmt"
  cargo clippy --version >/dev/null 2>&1 || die "clippy missing: rustup component add clippy"
  command -v node >/dev/null 2>&1 || die "node not found: install Node 20 (>= $MIN_NODE) and npm"
  command -v npm >/dev/null 2>&1 || die "npm not found: install npm with Node"
  local node_version
  node_version="$(node --version)"
  node_version="${node_version#v}"
  if [[ "$(printf '%s\n%s\n' "$MIN_NODE" "$node_version" | sort -V | head -n1)" != "$MIN_NODE" ]]; then
    die "Node $node_version is too old: Vite needs >= $MIN_NODE"
  fi
}

# Installs those of the given Debian packages that are missing; no apt-get at all when none is.
ensure_debian_packages() {
  local missing=() package
  for package in "$@"; do
    if [[ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" != "install ok installed" ]]; then
      missing+=("$package")
    fi
  done
  if [[ ${#missing[@]} -eq 0 ]]; then
    note "Debian packages: all ${#} present"
    return
  fi
  note "Debian packages missing: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# npm ci in folder $1, unless its node_modules was installed from exactly its package-lock.json.
ensure_npm_packages_in() {
  local dir="$1" stamp="$1/node_modules/.installed-from-lock.sha256" lock_hash
  lock_hash="$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_hash" ]]; then
    note "npm packages of ${dir#"$REPO_ROOT"/}: up to date with package-lock.json"
    return
  fi
  (cd "$dir" && npm ci --no-audit --no-fund)
  printf '%s\n' "$lock_hash" >"$stamp"
}

# The UI's npm packages.
ensure_npm_packages() {
  ensure_npm_packages_in "$UI_DIR"
}

ensure_tauri_driver() {
  if command -v tauri-driver >/dev/null 2>&1; then
    note "tauri-driver: $(command -v tauri-driver)"
    return
  fi
  cargo install tauri-driver --locked --version "$TAURI_DRIVER_VERSION"
}

setup_app() {
  step "setup: toolchain, Debian packages, npm packages"
  check_toolchain
  ensure_debian_packages "${APP_PACKAGES[@]}"
  ensure_npm_packages
}

setup_tests() {
  step "setup: toolchain, Debian packages, npm packages, tauri-driver"
  check_toolchain
  ensure_debian_packages "${APP_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
  ensure_npm_packages
  # The MCP reference servers the Rust tests run (pinned by tests/mcp/package-lock.json).
  ensure_npm_packages_in "$REPO_ROOT/tests/mcp"
  ensure_tauri_driver
}
