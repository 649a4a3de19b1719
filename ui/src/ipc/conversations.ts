// The sidebar's commands (board/ipc-contract.md, "Conversations"): list, search, open, rename, delete, undo,
// export. Like backend.ts, this module is one of the only two places that import @tauri-apps/api; everything
// else sees plain functions and the types below, and tests replace the module (vi.mock) or the IPC (mockIPC).
import { invoke } from "@tauri-apps/api/core";

import type { AgentMessage, AppState } from "./wire";

/** One conversation as the sidebar lists it (desktop-host `store::ConversationSummary`). */
export interface ConversationSummary {
  id: string;
  /** `null` until the first user message (the sidebar shows a placeholder). */
  title: string | null;
  model: string | null;
  /** ms since the epoch. */
  createdAt: number;
  /** Last change (message, rename), ms since the epoch. */
  updatedAt: number;
}

/** The conversations of one local day, newest first. */
export interface DayGroup {
  /** `YYYY-MM-DD` in the backend's local time zone. */
  day: string;
  conversations: ConversationSummary[];
}

export interface StorageStatus {
  /** False when history cannot be saved (kept in memory until the app quits). */
  persistent: boolean;
  /** Safe-to-show texts: damaged file moved aside, upgraded, memory only. */
  notices: string[];
}

/** `list_conversations` result. */
export interface ConversationList {
  days: DayGroup[];
  activeId: string | null;
  /** Conversations with a run going on (the active one or in the background). */
  streamingIds: string[];
  storage: StorageStatus;
}

/** A piece of a search snippet; the pieces concatenate to the snippet. Rendered as text, never as HTML. */
export interface SnippetPart {
  text: string;
  highlighted: boolean;
}

/** `search_conversations` result item. */
export interface SearchHit {
  conversationId: string;
  conversationTitle: string | null;
  conversationUpdatedAt: number;
  messageSeq: number;
  role: string;
  snippet: SnippetPart[];
}

/** `delete_conversation` result. */
export interface DeletedConversation {
  conversationId: string;
  /** `restore_conversation` works until this time (ms since the epoch). */
  undoUntil: number;
  /** The active conversation was deleted: the chat reloads with `get_state`. */
  wasActive: boolean;
}

export type ExportFormat = "markdown" | "jsonLines";

/** `export_conversation` result: the file written into Downloads. */
export interface ExportedFile {
  fileName: string;
  path: string;
}

/**
 * The `errorMessage` the backend gives an assistant message cut off by a crash (desktop-host
 * `store::INTERRUPTED_ERROR_MESSAGE`); such a message comes back with `stopReason: "aborted"`.
 */
export const INTERRUPTED_ERROR_MESSAGE = "interrupted: the app stopped before this message was complete";

/** True for an assistant message that a crash interrupted: the transcript shows it marked "interrupted". */
export function isInterruptedMessage(message: AgentMessage): boolean {
  return message.role === "assistant" && message.errorMessage === INTERRUPTED_ERROR_MESSAGE;
}

export function listConversations(): Promise<ConversationList> {
  return invoke<ConversationList>("list_conversations");
}

/** Full-text search; a blank query resolves with `[]`. */
export function searchConversations(query: string, limit?: number): Promise<SearchHit[]> {
  return invoke<SearchHit[]>("search_conversations", limit === undefined ? { query } : { query, limit });
}

/** Switches to a conversation; resolves with its state, as `get_state` does. A run elsewhere keeps going. */
export function openConversation(conversationId: string): Promise<AppState> {
  return invoke<AppState>("open_conversation", { conversationId });
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

/** Writes the conversation into the user's Downloads folder; resolves with the file's name. */
export function exportConversation(conversationId: string, format: ExportFormat): Promise<ExportedFile> {
  return invoke<ExportedFile>("export_conversation", { conversationId, format });
}
