# The .deb the Tauri CLI builds, and the checks layer 5 runs on the file, on the installed package and on
# the installed app. Every check prints what is wrong before it fails.
# Source scripts/lib/common.sh first.

# The Debian package, its binary and its desktop entry (Tauri names the entry after productName).
DEB_PACKAGE="pi-desktop"
INSTALLED_BINARY="/usr/bin/pi-desktop"
INSTALLED_DESKTOP_ENTRY="/usr/share/applications/Pi Desktop.desktop"
# The hicolor icon folders the package must fill, one per PNG in tauri.conf.json's bundle.icon. Plain sizes
# only: Tauri files a `128x128@2x.png` under `256x256@2`, where the theme expects 512 px images.
ICON_FOLDERS=(32x32 64x64 128x128 256x256 512x512)
# Runtime libraries the package must depend on: the app links against them.
# The tray icon loads libayatana-appindicator3 at run time (src-tauri/src/tray.rs).
REQUIRED_DEPENDS=(libwebkit2gtk-4.1-0 libgtk-3-0 libayatana-appindicator3-1)

fail() {
  printf '    FAIL: %s\n' "$*" >&2
  return 1
}

# The app's version: pi-desktop's in Cargo.toml (the workspace version). Tauri takes it from there too.
app_version() {
  local id
  id="$(cd "$REPO_ROOT" && cargo pkgid -p pi-desktop)" || return 1
  printf '%s\n' "${id##*[@#]}"
}

# The .deb `tauri build` writes for this version, under the cargo target dir like the binary.
deb_path() {
  printf '%s/release/bundle/deb/Pi Desktop_%s_%s.deb\n' \
    "$(cargo_target_dir)" "$(app_version)" "$(dpkg --print-architecture)"
}

# `tauri build --bundles deb`: the UI (beforeBuildCommand), a release build with the UI embedded, the .deb.
# Runs from src-tauri/, where the CLI finds tauri.conf.json (a symlink to the root file) next to a
# [package] Cargo.toml.
build_deb() {
  local deb
  deb="$(deb_path)"
  rm -f "$deb"
  (cd "$REPO_ROOT/src-tauri" && "$UI_DIR/node_modules/.bin/tauri" build --ci --bundles deb) || return 1
  [[ -f "$deb" ]] || fail "tauri build succeeded but wrote no $deb"
  note "built $deb ($(du -k "$deb" | cut -f1) KiB)"
}

deb_field() { dpkg-deb -f "$(deb_path)" "$1"; }

# The control file: name, version from Cargo.toml, architecture, description, the WebKitGTK dependencies.
check_deb_control() {
  local deb version depends dependency ok=0
  deb="$(deb_path)"
  version="$(app_version)"
  [[ "$(deb_field Package)" == "$DEB_PACKAGE" ]] || fail "Package is '$(deb_field Package)', want $DEB_PACKAGE" || ok=1
  [[ "$(deb_field Version)" == "$version" ]] ||
    fail "Version is '$(deb_field Version)', want $version (Cargo.toml)" || ok=1
  [[ "$(deb_field Architecture)" == "$(dpkg --print-architecture)" ]] ||
    fail "Architecture is '$(deb_field Architecture)', want $(dpkg --print-architecture)" || ok=1
  [[ -n "$(deb_field Description)" ]] || fail "no Description" || ok=1
  depends="$(deb_field Depends)"
  for dependency in "${REQUIRED_DEPENDS[@]}"; do
    [[ ", $depends," == *", $dependency"[\ ,]* ]] || fail "Depends ($depends) lacks $dependency" || ok=1
  done
  note "Package $DEB_PACKAGE $version; Depends: $depends"
  return "$ok"
}

# The package's files: the binary, the desktop entry, one icon per size.
check_deb_files() {
  local files path folder ok=0
  # The paths alone (after the date and time columns), without a leading "./".
  files="$(dpkg-deb -c "$(deb_path)" | sed -E 's#^.* [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} (\./)?##')"
  for path in "usr/bin/pi-desktop" "usr/share/applications/Pi Desktop.desktop"; do
    grep -qxF "$path" <<<"$files" || fail "the .deb lacks $path" || ok=1
  done
  for folder in "${ICON_FOLDERS[@]}"; do
    grep -qxF "usr/share/icons/hicolor/$folder/apps/pi-desktop.png" <<<"$files" ||
      fail "the .deb lacks the $folder icon (usr/share/icons/hicolor/$folder/apps/pi-desktop.png)" || ok=1
  done
  return "$ok"
}

# This test installs and removes the package, so it refuses to touch one that was there before it.
check_not_installed() {
  local status
  status="$(dpkg-query -W -f='${Status} ${Version}' "$DEB_PACKAGE" 2>/dev/null || true)"
  if [[ "$status" == "install ok installed"* ]]; then
    fail "$DEB_PACKAGE is already installed (${status##* }); this test installs and removes it, so remove it first: apt-get remove -y $DEB_PACKAGE"
  fi
}

# Needs root for dpkg: root itself (CI), or sudo without a password prompt it cannot answer.
check_can_be_root() {
  [[ $(id -u) -eq 0 ]] && return 0
  command -v sudo >/dev/null 2>&1 || fail "installing the .deb needs root: run as root or install sudo" || return 1
  sudo -n true 2>/dev/null || sudo -v || fail "installing the .deb needs root: sudo did not grant it"
}

# Every dependency is present already (setup installs their -dev packages), so dpkg -i installs this
# package alone and removing it leaves the machine as it was.
check_depends_installed() {
  local dependency name missing=()
  IFS=',' read -ra dependencies <<<"$(deb_field Depends)"
  for dependency in "${dependencies[@]}"; do
    name="$(awk '{print $1}' <<<"$dependency")"
    [[ "$(dpkg-query -W -f='${Status}' "$name" 2>/dev/null)" == "install ok installed" ]] || missing+=("$name")
  done
  [[ ${#missing[@]} -eq 0 ]] || fail "dependencies not installed: ${missing[*]} (they must be Debian packages; apt-get install ./file.deb would pull them)"
}

PACKAGE_INSTALLED_BY_TEST=0

remove_package() {
  if [[ "$PACKAGE_INSTALLED_BY_TEST" -eq 1 ]]; then
    note "removing $DEB_PACKAGE (dpkg -r)"
    as_root dpkg -r "$DEB_PACKAGE" >/dev/null || fail "dpkg -r $DEB_PACKAGE failed" || return 1
    PACKAGE_INSTALLED_BY_TEST=0
  fi
}

# Installs the .deb; the package is removed when the shell exits, whatever happens after.
install_deb() {
  trap remove_package EXIT
  trap 'exit 130' INT TERM
  PACKAGE_INSTALLED_BY_TEST=1
  as_root dpkg -i "$(deb_path)"
}

desktop_entry_value() {
  sed -n "s/^$1=//p" "$INSTALLED_DESKTOP_ENTRY" | head -n1
}

# The installed files: the binary, a valid desktop entry that names the binary and the icon, the icons at
# their real sizes.
check_installed_files() {
  local ok=0 folder icon size
  [[ -x "$INSTALLED_BINARY" ]] || fail "$INSTALLED_BINARY is not an executable file" || ok=1
  local reported
  reported="$(env -u DISPLAY -u WAYLAND_DISPLAY "$INSTALLED_BINARY" --version)" || fail "$INSTALLED_BINARY --version failed" || ok=1
  [[ "$reported" == "Pi Desktop $(app_version)" ]] ||
    fail "$INSTALLED_BINARY --version says '$reported', want 'Pi Desktop $(app_version)'" || ok=1
  [[ -f "$INSTALLED_DESKTOP_ENTRY" ]] || fail "no desktop entry $INSTALLED_DESKTOP_ENTRY" || return 1
  desktop-file-validate "$INSTALLED_DESKTOP_ENTRY" || fail "desktop-file-validate rejects the entry" || ok=1
  [[ "$(desktop_entry_value Name)" == "Pi Desktop" ]] || fail "Name is '$(desktop_entry_value Name)'" || ok=1
  [[ "$(desktop_entry_value Exec)" == "pi-desktop" ]] || fail "Exec is '$(desktop_entry_value Exec)'" || ok=1
  [[ "$(desktop_entry_value Icon)" == "pi-desktop" ]] || fail "Icon is '$(desktop_entry_value Icon)'" || ok=1
  [[ "$(desktop_entry_value Type)" == "Application" ]] || fail "Type is '$(desktop_entry_value Type)'" || ok=1
  [[ -n "$(desktop_entry_value Categories)" ]] || fail "no Categories" || ok=1
  [[ -n "$(desktop_entry_value StartupWMClass)" ]] || fail "no StartupWMClass" || ok=1
  for folder in "${ICON_FOLDERS[@]}"; do
    icon="/usr/share/icons/hicolor/$folder/apps/pi-desktop.png"
    size="${folder%%@*}"
    size="${size/x/ x }"
    if [[ ! -f "$icon" ]]; then
      fail "no icon $icon" || ok=1
    elif [[ "$(file -b "$icon")" != "PNG image data, $size,"* ]]; then
      fail "$icon is not a $size PNG: $(file -b "$icon")" || ok=1
    fi
  done
  note "$(sed -n '/^\[Desktop Entry\]/,$p' "$INSTALLED_DESKTOP_ENTRY" | tr '\n' ' ')"
  return "$ok"
}

# Starts the installed binary under Xvfb, waits for its window and compares the window's WM_CLASS with
# the entry's StartupWMClass (the menu entry and the running window must group together).
check_window_class() {
  local want got
  want="$(desktop_entry_value StartupWMClass)"
  got="$(xvfb-run -a -s "-screen 0 1280x800x24" "$REPO_ROOT/scripts/lib/window-class.sh" "$INSTALLED_BINARY")" ||
    fail "the installed app showed no window (see above)" || return 1
  note "window WM_CLASS: $got"
  [[ " $got " == *" \"$want\""* ]] || fail "the window's WM_CLASS ($got) does not contain StartupWMClass=$want"
}

# The WebDriver window test against the installed binary: it starts, shows the window, loads the
# embedded UI and reaches the backend (the title carries the version from app_info).
# A filter that matches nothing passes silently, so the output must show at least one test passed.
check_installed_app_over_webdriver() {
  local output
  output="$(mktemp)"
  (cd "$REPO_ROOT" && env PI_DESKTOP_APP="$INSTALLED_BINARY" PI_E2E_ARTIFACTS="$REPO_ROOT/artifacts/package" \
    xvfb-run -a -s "-screen 0 1280x800x24" \
    cargo test "${E2E_CARGO_ARGS[@]}" --test e2e -- --test-threads=1 window::) | tee "$output"
  local status=${PIPESTATUS[0]}
  if [[ $status -eq 0 ]] && ! grep -qE 'test result: ok\. [1-9][0-9]* passed' "$output"; then
    fail "no test matched window:: in tests/e2e (renamed?)"
    status=1
  fi
  rm -f "$output"
  return "$status"
}

check_removed() {
  local ok=0
  remove_package || ok=1
  trap - EXIT INT TERM
  [[ "$(dpkg-query -W -f='${Status}' "$DEB_PACKAGE" 2>/dev/null || true)" != "install ok installed" ]] ||
    fail "$DEB_PACKAGE is still installed" || ok=1
  [[ ! -e "$INSTALLED_BINARY" ]] || fail "$INSTALLED_BINARY is still there" || ok=1
  [[ ! -e "$INSTALLED_DESKTOP_ENTRY" ]] || fail "$INSTALLED_DESKTOP_ENTRY is still there" || ok=1
  return "$ok"
}
