// The sidebar's commands (board/ipc-contract.md, "Conversations"): list, search, open, rename, delete, undo,
// export. Like backend.ts, this module is one of the only two places that import @tauri-apps/api; everything
// else sees plain functions and the types below, and tests replace the module (vi.mock) or the IPC (mockIPC).
import { invoke } from "@tauri-apps/api/core";

import type {
  AgentMessage,
  AppState,
  ConversationList,
  ConversationSummary,
  DeletedConversation,
  ExportFormat,
  ExportedFile,
  SearchHit,
} from "./wire";
import type { Language } from "../i18n/strings";

export type {
  ConversationList,
  ConversationSummary,
  DayGroup,
  DeletedConversation,
  ExportFormat,
  ExportedFile,
  SearchHit,
  SnippetPart,
  StorageStatus,
} from "./wire";

/**
 * The `errorMessage` the backend gives an assistant message cut off by a crash (desktop-host
 * `store::INTERRUPTED_ERROR_MESSAGE`); such a message comes back with `stopReason: "aborted"`.
 */
export const INTERRUPTED_ERROR_MESSAGE = "interrupted: the app stopped before this message was complete";

/** True for an assistant message that a crash interrupted: the transcript shows it marked "interrupted". */
export function isInterruptedMessage(message: AgentMessage): boolean {
  return message.role === "assistant" && message.errorMessage === INTERRUPTED_ERROR_MESSAGE;
}

/** The sidebar's list: the `limit` most recent conversations (all without one), and whether there are more. */
export function listConversations(limit?: number): Promise<ConversationList> {
  return invoke<ConversationList>("list_conversations", limit === undefined ? {} : { limit });
}

/** Full-text search; a blank query resolves with `[]`. */
export function searchConversations(query: string, limit?: number): Promise<SearchHit[]> {
  return invoke<SearchHit[]>("search_conversations", limit === undefined ? { query } : { query, limit });
}

/**
 * A transcript longer than this many messages is opened from its end: the last turns come at once (`leftOut`
 * says what is missing) and `get_state` brings the whole after the first frame, so a conversation of 10,000
 * messages opens about as fast as a short one.
 */
export const OPENED_FROM_END = 400;

/**
 * Switches to a conversation; resolves with its state, as `get_state` does, but from its end when it is long
 * (`OPENED_FROM_END`). A run elsewhere keeps going.
 */
export function openConversation(conversationId: string): Promise<AppState> {
  return invoke<AppState>("open_conversation", { conversationId, tail: OPENED_FROM_END });
}

export function renameConversation(conversationId: string, title: string): Promise<ConversationSummary> {
  return invoke<ConversationSummary>("rename_conversation", { conversationId, title });
}

export function deleteConversation(conversationId: string): Promise<DeletedConversation> {
  return invoke<DeletedConversation>("delete_conversation", { conversationId });
}

export function restoreConversation(conversationId: string): Promise<null> {
  return invoke<null>("restore_conversation", { conversationId });
}

/**
 * Asks where to save the conversation (the system's save dialog, in Downloads on its file name, titled in
 * `language`); resolves with the chosen path, or null when the user cancelled.
 */
export function chooseExportPath(conversationId: string, format: ExportFormat, language: Language): Promise<string | null> {
  return invoke<string | null>("choose_export_path", { conversationId, format, language });
}

/**
 * Writes the conversation to `path` (from chooseExportPath; a file there is replaced), or into the user's Downloads
 * folder without one, a document's headings in `language`; resolves with the file's name and path.
 */
export function exportConversation(
  conversationId: string,
  format: ExportFormat,
  language: Language,
  path?: string,
): Promise<ExportedFile> {
  return invoke<ExportedFile>("export_conversation", { conversationId, format, language, path: path ?? null });
}

/** Shows a file exported in this run of the app selected in the file manager. */
export function revealExportedFile(path: string): Promise<null> {
  return invoke<null>("reveal_exported_file", { path });
}
