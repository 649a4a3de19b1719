//! End-to-end tests of the real app over WebDriver, one module per area. Each test launches its own
//! app (`AppUnderTest::launch`) and closes it; screenshots go to `artifacts/e2e/`.
//! Run them with `scripts/test-e2e.sh` (Xvfb, tauri-driver, the app built with the UI embedded).

// The first window: layout, idle state, the composer.
mod window;
