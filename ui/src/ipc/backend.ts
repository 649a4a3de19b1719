// The only module that talks to the Rust backend. Nothing else imports @tauri-apps/api:
// components and state see plain functions and wire types, and tests replace the backend with mockIPC.
import { invoke } from "@tauri-apps/api/core";

import type { AppInfo } from "./wire";

/** Asks the backend for the app's name and version. */
export function fetchAppInfo(): Promise<AppInfo> {
  return invoke<AppInfo>("app_info");
}
