// Wire types: what the Rust backend sends over IPC, field for field (camelCase, as serde writes it).
// Keep these in step with src-tauri; pi's message and event JSON will live here too.

/** `app_info` command result (src-tauri `AppInfo`). */
export interface AppInfo {
  name: string;
  version: string;
}
