// The only module that talks to the Rust backend (board/ipc-contract.md). Nothing else imports
// @tauri-apps/api: components and state see plain functions and wire types, and tests replace the backend
// with mockIPC. Every envelope of every conversation arrives on the one Channel handed to `subscribe`.
import { Channel, invoke } from "@tauri-apps/api/core";

import type {
  AppInfo,
  ApprovalDecision,
  AppState,
  AttachedFile,
  CommandError,
  Envelope,
  FileInput,
  ImageInput,
  LiveSnapshot,
  McpServersView,
  MessagePairDeleted,
  RunAccepted,
  SettingsInput,
  SettingsView,
} from "./wire";
import type { QueueSettings } from "./bindings/QueueSettings";
import type { QueuedMessage } from "./bindings/QueuedMessage";
import type { QueuedSendOutcome } from "./bindings/QueuedSendOutcome";
import type { McpImportCandidates } from "./bindings/McpImportCandidates";
import type { McpImportChoice } from "./bindings/McpImportChoice";
import type { McpServerInput } from "./bindings/McpServerInput";
import type { ApprovalSettings } from "./bindings/ApprovalSettings";
import type { ConversationGrant } from "./bindings/ConversationGrant";

/**
 * The window's event stream, once per page load: every envelope from now on goes to `onEnvelope`, in order; the
 * promise resolves with the runs in progress up to the envelope before the first one delivered.
 */
export function subscribe(onEnvelope: (envelope: Envelope) => void): Promise<LiveSnapshot> {
  // Lean: each block's text comes once, not again at the end of its message and run (state/assistant-blocks).
  return invoke<LiveSnapshot>("subscribe", { onEvent: new Channel<Envelope>(onEnvelope), lean: true });
}

/** Asks the backend for the app's name, version, log folder and platform. */
export function fetchAppInfo(): Promise<AppInfo> {
  return invoke<AppInfo>("app_info");
}

/** Whether the app starts when the user logs in (the operating system's autostart entry). */
export function autostartEnabled(): Promise<boolean> {
  return invoke<boolean>("autostart_enabled");
}

/** Makes the app start when the user logs in, or not; resolves with whether it now does. */
export function setAutostart(enabled: boolean): Promise<boolean> {
  return invoke<boolean>("set_autostart", { enabled });
}

/** Opens the folder of the app's log files in the file manager. */
export function openLogFolder(): Promise<null> {
  return invoke<null>("open_log_folder");
}

/** The active conversation's state; with `tail`, a long transcript from its end (see `OPENED_FROM_END`). */
export function getState(tail?: number): Promise<AppState> {
  return invoke<AppState>("get_state", tail === undefined ? {} : { tail });
}

/** Starts a fresh conversation; refused with `busy` while a run is active. */
export function newConversation(): Promise<AppState> {
  return invoke<AppState>("new_conversation");
}

/**
 * Sends a prompt to the active conversation, with images and the text of attached files. Resolves once the run
 * is accepted (its envelopes come on the subscribed stream); rejects with a {@link CommandError} when refused
 * (busy, an invalid image or file, no provider).
 */
export function sendPrompt(
  text: string,
  images: readonly ImageInput[],
  files: readonly FileInput[] = [],
): Promise<RunAccepted> {
  const args: Record<string, unknown> = { text };
  if (images.length > 0) args["images"] = [...images];
  if (files.length > 0) args["files"] = [...files];
  return invoke<RunAccepted>("prompt", args);
}

/**
 * The text of a file the user attached, read by the host from its bytes (`data`: base64); rejects with a
 * {@link CommandError} (attachment_too_large, attachment_unsupported, attachment_unreadable, attachment_no_text).
 */
export function readAttachment(name: string, data: string): Promise<AttachedFile> {
  return invoke<AttachedFile>("read_attachment", { name, data });
}

/** Retry after a failed or stopped answer: continues the run from where it failed; resolves once accepted. */
export function continueRun(): Promise<RunAccepted> {
  return invoke<RunAccepted>("continue_run");
}

// Versions and branches of a conversation's messages (desktop-host `session::branches`); a message is named by its
// store `seq` (`AppState.versions`). Each is refused with `run_active` while the conversation runs.

/** A new version of answer `seq`; resolves once the run is accepted. */
export function regenerate(conversationId: string, seq: number): Promise<RunAccepted> {
  return invoke<RunAccepted>("regenerate", { conversationId, seq });
}

/** Sends `text` in place of user message `seq` (a new branch); resolves once the run is accepted. */
export function editMessage(conversationId: string, seq: number, text: string): Promise<RunAccepted> {
  return invoke<RunAccepted>("edit_message", { conversationId, seq, text });
}

/** Shows the previous (-1) or next (1) version of message `seq`; resolves with the conversation as shown now. */
export function showVersion(conversationId: string, seq: number, step: -1 | 1): Promise<AppState> {
  return invoke<AppState>("show_version", { conversationId, seq, step });
}

/** Deletes user message `seq` and its answer, restorably for a few seconds. */
export function deleteMessagePair(conversationId: string, seq: number): Promise<MessagePairDeleted> {
  return invoke<MessagePairDeleted>("delete_message_pair", { conversationId, seq });
}

/** Undoes deleteMessagePair. */
export function restoreMessages(conversationId: string, seqs: readonly number[]): Promise<AppState> {
  return invoke<AppState>("restore_messages", { conversationId, seqs: [...seqs] });
}

/** Continues the last answer, cut off by the length limit; resolves once the run is accepted. */
export function continueAnswer(conversationId: string): Promise<RunAccepted> {
  return invoke<RunAccepted>("continue_answer", { conversationId });
}

/** The user's answer to a tool call's approval question in conversation `conversationId`. */
export function resolveApproval(conversationId: string, requestId: number, decision: ApprovalDecision): Promise<null> {
  return invoke<null>("resolve_approval", { conversationId, requestId, decision });
}

/** Stop: aborts the active run (a no-op when idle). */
export function abortRun(): Promise<null> {
  return invoke<null>("abort");
}

// The queue of steering and follow-up messages travels with the wrappers that act on it.
export type { QueueKind } from "./bindings/QueueKind";
export type { QueueMode } from "./bindings/QueueMode";
export type { QueueSettings };
export type { QueuedMessage };
export type { QueuedSendOutcome };

/**
 * Queues a message in the active conversation: `steer` (delivered after the current tool batch, or when the answer
 * ends) or `follow_up` (delivered when the agent would otherwise stop). Its chip comes as `message_queued`.
 */
export function queueMessage(kind: "steer" | "follow_up", text: string): Promise<QueuedMessage> {
  return invoke<QueuedMessage>(kind, { text });
}

/** Cancels (or discards) queued message `id` of a conversation; refused once its turn has taken it. */
export function cancelQueued(conversationId: string, id: number): Promise<null> {
  return invoke<null>("cancel_queued", { conversationId, id });
}

/** Sends queued message `id` now: a run of its own between runs, else steering for the run in progress. */
export function sendQueued(conversationId: string, id: number): Promise<QueuedSendOutcome> {
  return invoke<QueuedSendOutcome>("send_queued", { conversationId, id });
}

/** How many steering messages, and how many follow-ups, one poll of the loop delivers. */
export function queueSettings(): Promise<QueueSettings> {
  return invoke<QueueSettings>("queue_settings");
}

export function saveQueueSettings(settings: QueueSettings): Promise<QueueSettings> {
  return invoke<QueueSettings>("save_queue_settings", { settings });
}

/** The MCP servers of mcp.json and where each stands (for the settings). */
export function mcpServers(): Promise<McpServersView> {
  return invoke<McpServersView>("mcp_servers");
}

/** Revokes an "always" grant: a tool's, or without `tool` the whole server's; resolves with the servers anew. */
export function revokeMcpGrant(server: string, tool?: string): Promise<McpServersView> {
  return invoke<McpServersView>("revoke_mcp_grant", tool === undefined ? { server } : { server, tool });
}

// The MCP editing types travel with the wrappers that take them.
export type { McpImportCandidate } from "./bindings/McpImportCandidate";
export type { McpImportCandidates, McpImportChoice, McpServerInput };
export type { McpImportFile } from "./bindings/McpImportFile";
export type { McpImportSource } from "./bindings/McpImportSource";
export type { McpTransportInput } from "./bindings/McpTransportInput";
export type { McpValueInput } from "./bindings/McpValueInput";

/**
 * The MCP servers as they are now; from then on `onChange` gets the whole view again after every change (a server
 * ready, failed, restarting, edited). A later call (the settings opened again, a reload) replaces this one.
 */
export function subscribeMcpServers(onChange: (view: McpServersView) => void): Promise<McpServersView> {
  return invoke<McpServersView>("subscribe_mcp_servers", { onChange: new Channel<McpServersView>(onChange) });
}

/** Adds a server, or replaces the one named `server.previousName`; values entered go to the keychain. */
export function saveMcpServer(server: McpServerInput): Promise<McpServersView> {
  return invoke<McpServersView>("save_mcp_server", { server });
}

/** Removes a server (it is ended) and the values the app kept for it in the keychain. */
export function removeMcpServer(name: string): Promise<McpServersView> {
  return invoke<McpServersView>("remove_mcp_server", { name });
}

/** Enables a server (it starts) or disables it (it is ended). */
export function setMcpServerEnabled(name: string, enabled: boolean): Promise<McpServersView> {
  return invoke<McpServersView>("set_mcp_server_enabled", { name, enabled });
}

/** Gives the assistant one tool of a server, or takes it away. */
export function setMcpToolEnabled(server: string, tool: string, enabled: boolean): Promise<McpServersView> {
  return invoke<McpServersView>("set_mcp_tool_enabled", { server, tool, enabled });
}

/** Ends a server and starts it again. */
export function restartMcpServer(name: string): Promise<McpServersView> {
  return invoke<McpServersView>("restart_mcp_server", { name });
}

/** The servers Claude Desktop and Cursor have, each with the exact command line it would run. */
export function mcpImportCandidates(): Promise<McpImportCandidates> {
  return invoke<McpImportCandidates>("mcp_import_candidates");
}

/** Copies the chosen servers into mcp.json, disabled. */
export function importMcpServers(chosen: McpImportChoice[]): Promise<McpServersView> {
  return invoke<McpServersView>("import_mcp_servers", { chosen });
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

/**
 * Stores the API key in the OS keychain for the provider of `preset`, the one the form shows (omitted: the saved
 * preset's); the UI never reads it back.
 */
export function setApiKey(key: string, preset?: string): Promise<SettingsView> {
  return invoke<SettingsView>("set_api_key", preset === undefined ? { key } : { key, preset });
}

/** Deletes the stored key of `preset`'s provider (omitted: the saved preset's). */
export function deleteApiKey(preset?: string): Promise<SettingsView> {
  return invoke<SettingsView>("delete_api_key", preset === undefined ? {} : { preset });
}

/** The user confirmed keeping keys in a private file because no keychain answers; the backend creates it. */
export function acceptKeyFileFallback(): Promise<SettingsView> {
  return invoke<SettingsView>("accept_key_file_fallback");
}

/** Any rejection as the contract's `{kind, code, detail}`; a non-conforming one becomes `internal` / `unexpected`. */
export function toCommandError(error: unknown): CommandError {
  if (typeof error === "object" && error !== null) {
    const record = error as Record<string, unknown>;
    const kind = typeof record["kind"] === "string" ? record["kind"] : "internal";
    const code = typeof record["code"] === "string" ? record["code"] : "unexpected";
    const detail = record["detail"] ?? record["message"];
    return typeof detail === "string" && detail !== "" ? { kind, code, detail } : { kind, code };
  }
  if (typeof error === "string" && error !== "") return { kind: "internal", code: "unexpected", detail: error };
  return { kind: "internal", code: "unexpected" };
}
