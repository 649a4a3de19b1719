// The only module that talks to the Rust backend (board/ipc-contract.md). Nothing else imports
// @tauri-apps/api: components and state see plain functions and wire types, and tests replace the backend
// with mockIPC. Streaming events arrive only on the Channel handed to `prompt` / `continue_run`.
import { Channel, invoke } from "@tauri-apps/api/core";

import type { AppInfo, AppState, CommandError, Envelope, SettingsInput, SettingsView } from "./wire";

/** Asks the backend for the app's name, version, log folder and platform. */
export function fetchAppInfo(): Promise<AppInfo> {
  return invoke<AppInfo>("app_info");
}

export function getState(): Promise<AppState> {
  return invoke<AppState>("get_state");
}

/** Starts a fresh conversation; refused with `busy` while a run is active. */
export function newConversation(): Promise<AppState> {
  return invoke<AppState>("new_conversation");
}

export interface PromptImage {
  data: string;
  mimeType: string;
}

/**
 * Sends a prompt. Every envelope of the run is passed to `onEnvelope` in order; the promise resolves once the
 * run settled and the `idle` notice was sent, and rejects with a {@link CommandError}.
 */
export function sendPrompt(text: string, images: readonly PromptImage[], onEnvelope: (envelope: Envelope) => void) {
  const onEvent = new Channel<Envelope>(onEnvelope);
  const args = images.length === 0 ? { text, onEvent } : { text, images: [...images], onEvent };
  return invoke<null>("prompt", args);
}

/** Retry after a failed or stopped answer: continues the run from where it failed. */
export function continueRun(onEnvelope: (envelope: Envelope) => void) {
  return invoke<null>("continue_run", { onEvent: new Channel<Envelope>(onEnvelope) });
}

/** Stop: aborts the active run (a no-op when idle). */
export function abortRun(): Promise<null> {
  return invoke<null>("abort");
}

export function getSettings(): Promise<SettingsView> {
  return invoke<SettingsView>("get_settings");
}

export function saveSettings(settings: SettingsInput): Promise<SettingsView> {
  return invoke<SettingsView>("save_settings", { settings });
}

/** Stores the API key in the OS keychain; the UI never reads it back. */
export function setApiKey(key: string): Promise<SettingsView> {
  return invoke<SettingsView>("set_api_key", { key });
}

export function deleteApiKey(): Promise<SettingsView> {
  return invoke<SettingsView>("delete_api_key");
}

/** The user confirmed keeping keys in a private file because no keychain answers; the backend creates it. */
export function acceptKeyFileFallback(): Promise<SettingsView> {
  return invoke<SettingsView>("accept_key_file_fallback");
}

/** Any rejection as the contract's `{kind, message}`; a non-conforming rejection becomes `internal`. */
export function toCommandError(error: unknown): CommandError {
  if (typeof error === "object" && error !== null) {
    const record = error as Record<string, unknown>;
    const kind = record["kind"];
    const message = record["message"];
    if (typeof kind === "string" && typeof message === "string") return { kind, message };
    if (typeof message === "string") return { kind: "internal", message };
  }
  if (typeof error === "string" && error !== "") return { kind: "internal", message: error };
  return { kind: "internal", message: "The app's backend failed unexpectedly. Restart Pi Desktop if this persists." };
}
