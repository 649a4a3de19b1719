// The only module that talks to the Rust backend (board/ipc-contract.md). Nothing else imports
// @tauri-apps/api: components and state see plain functions and wire types, and tests replace the backend
// with mockIPC. Every envelope of every conversation arrives on the one Channel handed to `subscribe`.
import { Channel, invoke } from "@tauri-apps/api/core";

import type {
  AppInfo,
  ApprovalDecision,
  AppState,
  CommandError,
  Envelope,
  ImageInput,
  LiveSnapshot,
  McpServersView,
  RunAccepted,
  SettingsInput,
  SettingsView,
} from "./wire";
import type { ApprovalSettings } from "./bindings/ApprovalSettings";
import type { ConversationGrant } from "./bindings/ConversationGrant";

/**
 * The window's event stream, once per page load: every envelope from now on goes to `onEnvelope`, in order; the
 * promise resolves with the runs in progress up to the envelope before the first one delivered.
 */
export function subscribe(onEnvelope: (envelope: Envelope) => void): Promise<LiveSnapshot> {
  return invoke<LiveSnapshot>("subscribe", { onEvent: new Channel<Envelope>(onEnvelope) });
}

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

/**
 * Sends a prompt to the active conversation. Resolves once the run is accepted (its envelopes come on the
 * subscribed stream); rejects with a {@link CommandError} when refused (busy, an invalid image, no provider).
 */
export function sendPrompt(text: string, images: readonly ImageInput[]): Promise<RunAccepted> {
  const args = images.length === 0 ? { text } : { text, images: [...images] };
  return invoke<RunAccepted>("prompt", args);
}

/** Retry after a failed or stopped answer: continues the run from where it failed; resolves once accepted. */
export function continueRun(): Promise<RunAccepted> {
  return invoke<RunAccepted>("continue_run");
}

/** The user's answer to a tool call's approval question in conversation `conversationId`. */
export function resolveApproval(conversationId: string, requestId: number, decision: ApprovalDecision): Promise<null> {
  return invoke<null>("resolve_approval", { conversationId, requestId, decision });
}

/** Stop: aborts the active run (a no-op when idle). */
export function abortRun(): Promise<null> {
  return invoke<null>("abort");
}

/** The MCP servers of mcp.json and where each stands (for the settings). */
export function mcpServers(): Promise<McpServersView> {
  return invoke<McpServersView>("mcp_servers");
}

/** Revokes an "always" grant: a tool's, or without `tool` the whole server's; resolves with the servers anew. */
export function revokeMcpGrant(server: string, tool?: string): Promise<McpServersView> {
  return invoke<McpServersView>("revoke_mcp_grant", tool === undefined ? { server } : { server, tool });
}

/** The "allow in this conversation" grants of every conversation, newest first (for the settings). */
export function conversationGrants(): Promise<ConversationGrant[]> {
  return invoke<ConversationGrant[]>("conversation_grants");
}

/**
 * Revokes one conversation grant (`server` is empty for a built-in tool); its next call in that conversation asks
 * again. Resolves with the grants anew.
 */
export function revokeConversationGrant(conversationId: string, server: string, tool: string): Promise<ConversationGrant[]> {
  return invoke<ConversationGrant[]>("revoke_conversation_grant", { conversationId, server, tool });
}

/** Whether the built-in tools ask before they run. */
export function approvalSettings(): Promise<ApprovalSettings> {
  return invoke<ApprovalSettings>("approval_settings");
}

/** Saves the approval settings; open conversations follow them from their next tool call. */
export function saveApprovalSettings(settings: ApprovalSettings): Promise<ApprovalSettings> {
  return invoke<ApprovalSettings>("save_approval_settings", { settings });
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
