// The loop inspector's commands: a conversation's runs (stored and in progress), a run's event view, a stored run
// to replay, and a run's log exported into Downloads. Like backend.ts and conversations.ts, one of the few
// modules that import @tauri-apps/api; tests replace it (vi.mock) or the IPC (mockIPC).
import { invoke } from "@tauri-apps/api/core";

import type { ConversationInspection } from "./bindings/ConversationInspection";
import type { EventRow } from "./bindings/EventRow";
import type { ExportedFile } from "./bindings/ExportedFile";
import type { AgentMessage } from "./pi";
import type { Envelope } from "./wire";

export type { ConversationInspection } from "./bindings/ConversationInspection";
export type { EventRow } from "./bindings/EventRow";
export type { InspectedRun } from "./bindings/InspectedRun";
export type { RunExit } from "./bindings/RunExit";
export type { RunSummary } from "./bindings/RunSummary";
export type { ToolCallSummary } from "./bindings/ToolCallSummary";
export type { TurnSummary } from "./bindings/TurnSummary";

/** One line of a run's log: an envelope as the window received it and when (ms since the epoch). */
export interface LogLine {
  at: number;
  envelope: Envelope;
}

/** A stored run to replay: the conversation's messages before it, and its log. */
export interface RunReplay {
  before: AgentMessage[];
  lines: LogLine[];
}

export function inspectConversation(conversationId: string): Promise<ConversationInspection> {
  return invoke<ConversationInspection>("inspect_conversation", { conversationId });
}

/** The event view of a stored run, or of the run in progress when `logId` is null. */
export function runEvents(conversationId: string, logId: number | null): Promise<EventRow[]> {
  return invoke<EventRow[]>("run_events", logId === null ? { conversationId } : { conversationId, logId });
}

export function runReplay(conversationId: string, logId: number): Promise<RunReplay> {
  return invoke<RunReplay>("run_replay", { conversationId, logId });
}

export function exportRunLog(conversationId: string, logId: number): Promise<ExportedFile> {
  return invoke<ExportedFile>("export_run_log", { conversationId, logId });
}
