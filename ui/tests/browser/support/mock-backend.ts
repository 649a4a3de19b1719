// Runs inside the page before the app's own scripts (bundled by ./mock-backend-bundle.ts and added
// as an init script): @tauri-apps/api/mocks stands in for the Rust backend, and every call is recorded
// on `window.__piIpcCalls` for the test to read.
import { mockIPC } from "@tauri-apps/api/mocks";

declare global {
  interface Window {
    __piIpcCalls: { cmd: string; payload: unknown }[];
  }
}

window.__piIpcCalls = [];

mockIPC((cmd, payload) => {
  window.__piIpcCalls.push({ cmd, payload: payload ?? null });
  switch (cmd) {
    case "app_info":
      return { name: "Pi Desktop", version: "0.0.0-browser-test", logDir: null, os: "linux", arch: "x86_64" };
    case "subscribe":
      return { runs: [] };
    default:
      throw new Error(`the mock backend has no command ${cmd}`);
  }
});
