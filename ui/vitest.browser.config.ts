import { defineConfig } from "vitest/config";

// Browser tests: the built UI (ui/dist) in Debian's headless Chromium, driven by playwright-core,
// with @tauri-apps/api/mocks standing in for the Rust backend. Run `npm run build` first.
export default defineConfig({
  test: {
    include: ["tests/browser/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One Chromium at a time: the machine has two cores shared with cargo.
    fileParallelism: false,
  },
});
