// The connection settings' commands: how long a silent stream and a response head may take, how often a failed
// request is retried, and which proxy requests take. Like backend.ts, one of the few modules that import
// @tauri-apps/api; tests replace it (vi.mock).
import { invoke } from "@tauri-apps/api/core";

import type { ConnectionSettings } from "./bindings/ConnectionSettings";

export type { ConnectionSettings } from "./bindings/ConnectionSettings";
export type { ProxySetting } from "./bindings/ProxySetting";

export function connectionSettings(): Promise<ConnectionSettings> {
  return invoke<ConnectionSettings>("connection_settings");
}

/** Checks and saves the settings; rejects with `kind: "invalid"` naming the field when one is out of range. */
export function saveConnectionSettings(settings: ConnectionSettings): Promise<ConnectionSettings> {
  return invoke<ConnectionSettings>("save_connection_settings", { settings });
}
