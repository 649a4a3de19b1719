// Derived facts the components read; JSX holds no logic of its own. Every run fact is a function of the
// conversation's state, which envelopes alone move (plus the one fact that this window asked for a run).
import type { ProviderStatus } from "../ipc/bindings/ProviderStatus";
import type { AppInfo, FileEntry, FileListDetails } from "../ipc/wire";
import type { ApprovalView, AssistantItem, ChatState, RunStatus, ToolRun, ToolRunStatus, TranscriptItem } from "./chat";
import { conversationUsage, type ConversationUsage } from "./usage";

/** A tool card's state: its execution's, or waiting for the user's approval, or stopped before it ran. */
export type ToolCardState = ToolRunStatus | "awaiting_approval" | "stopped";

/**
 * Send is enabled only when the run settled: its idle notice arrived (no run in progress, run status `idle`)
 * and no prompt of this window is on its way. `agent_end` alone is not enough (the book's settling).
 */
export function canSend(state: ChatState): boolean {
  return state.runStatus === "idle" && state.runId === null && !state.submitting;
}

/** Stop is offered exactly while Send is not: from Send until the idle notice. */
export function canStop(state: ChatState): boolean {
  return !canSend(state);
}

export function runStatus(state: ChatState): RunStatus {
  if (state.runStatus === "idle" && (state.submitting || state.runId !== null)) {
    // The prompt is on its way, or the run's first envelopes came: the user sees it as running.
    return "running";
  }
  return state.runStatus;
}

/** Tool calls executing now, in start order. */
export function runningToolCallIds(state: ChatState): string[] {
  return Object.values(state.tools)
    .filter((run) => run.status === "running")
    .map((run) => run.toolCallId);
}

/**
 * A tool card's state: its execution's, or `running` while the call waits to execute in an active run; a call
 * that never ran, or never finished, before the run settled counts as an error.
 */
export function toolCardState(state: ChatState, toolCallId: string): ToolCardState {
  return toolCardStateOf(state.tools[toolCallId], !canSend(state), state.approvals[toolCallId]);
}

export function toolCardStateOf(run: ToolRun | undefined, runActive: boolean, approval?: ApprovalView): ToolCardState {
  if (approval !== undefined && (approval.status === "waiting" || approval.status === "answering") && runActive) {
    return "awaiting_approval";
  }
  if (approval?.status === "withdrawn") return "stopped";
  if (run === undefined || run.status === "running") return runActive ? "running" : "error";
  return run.status;
}

/** The failed or stopped answer Retry may continue from: the transcript's last item, once the run settled. */
export function retryableAssistantId(state: ChatState): string | null {
  if (!canSend(state)) return null;
  const last = state.transcript[state.transcript.length - 1];
  if (last === undefined || last.kind !== "assistant") return null;
  if ((last.status === "error" || last.status === "stopped" || last.status === "interrupted") && !last.retried) {
    return last.id;
  }
  return null;
}

/** The message that failed to start and may be sent again: the transcript's last item, once the run settled. */
export function resendableUserId(state: ChatState): string | null {
  if (!canSend(state)) return null;
  const last = state.transcript[state.transcript.length - 1];
  return last !== undefined && last.kind === "user" && last.delivery === "failed" ? last.id : null;
}

export interface StatusLine {
  status: RunStatus;
  turnCount: number;
  /** The conversation's size in tokens, each once: the last call's context plus its output (./usage). */
  tokensUsed: number;
  /** The answers' tokens and cost, each call once; `null` before any answer reported usage. */
  usage: ConversationUsage | null;
  /** The run waits on the model (no tool runs, no question waits), so silence means the model is slow. */
  waitingOnModel: boolean;
}

export function statusLine(state: ChatState): StatusLine {
  const status = runStatus(state);
  const questionWaits = Object.values(state.approvals).some(
    (approval) => approval.status === "waiting" || approval.status === "answering",
  );
  const usage = conversationUsage(state.transcript);
  return {
    status,
    turnCount: state.turnCount,
    tokensUsed: usage?.conversationTokens ?? 0,
    usage,
    waitingOnModel: status === "running" && runningToolCallIds(state).length === 0 && !questionWaits,
  };
}

/** A stream silent this long gets "waiting for the model… N s" in the status line. */
export const SILENCE_SHOWN_AFTER_MS = 3000;

/** Whole seconds the model has been silent, once that is worth saying; `null` otherwise. */
export function silentSeconds(facts: StatusLine, lastActivityMs: number, nowMs: number): number | null {
  if (!facts.waitingOnModel) return null;
  const silentMs = nowMs - lastActivityMs;
  return silentMs >= SILENCE_SHOWN_AFTER_MS ? Math.floor(silentMs / 1000) : null;
}

/** What the window knows of the provider: still asking, the backend's answer, or no answer (never blocks). */
export type ProviderState = { status: "checking" } | { status: "unknown" } | ProviderStatus;

/**
 * Why Send is disabled before any run: no usable model yet; `null` when it is not held back. While the answer is
 * on its way (a few milliseconds) Send stays as it was: a prompt refused then keeps its text on the message.
 */
export function sendBlockedReason(provider: ProviderState): "noModel" | null {
  switch (provider.status) {
    case "unusable":
      return "noModel";
    case "checking":
    case "usable":
    case "unknown":
      return null;
  }
}

/** The empty conversation shows the setup card while no provider is usable. */
export function showsSetupCard(provider: ProviderState, state: Pick<ChatState, "transcript">): boolean {
  return provider.status === "unusable" && state.transcript.length === 0;
}

/** "Pi Desktop 0.1.0" once the backend answered, the bare product name before. */
export function appTitle(appInfo: AppInfo | null): string {
  return appInfo === null ? "Pi Desktop" : `${appInfo.name} ${appInfo.version}`;
}

/** What went wrong with a failed answer, so the UI can say what to do. */
export type ErrorAdvice =
  | "auth"
  | "network"
  | "stalled"
  | "rate_limit"
  | "context"
  | "aborted"
  | "interrupted"
  | "provider";

export function errorAdvice(item: Pick<AssistantItem, "status" | "errorMessage">): ErrorAdvice {
  if (item.status === "stopped") return "aborted";
  if (item.status === "interrupted") return "interrupted";
  const message = item.errorMessage ?? "";
  if (/\b(401|403)\b|unauthori[sz]ed|forbidden|api[ _-]?key|authenticat|permission/i.test(message)) return "auth";
  if (/\b429\b|rate.?limit|too many requests|quota|overloaded/i.test(message)) return "rate_limit";
  if (/context (length|window)|too (long|many tokens)|maximum context/i.test(message)) return "context";
  // The host's idle timeout (pi-ai's stream_failure): the model went silent mid-answer, the connection was fine.
  if (/\(idle timeout\)|stopped sending data/i.test(message)) return "stalled";
  if (
    /network|connect|timed? ?out|timeout|dns|resolve|ENOTFOUND|ECONN|socket|offline|unreachable|fetch failed|error sending request/i.test(
      message,
    )
  ) {
    return "network";
  }
  return "provider";
}

/** The file list of a `list_download_files` / `list_folder` result, when the details have that shape. */
export function fileListDetails(result: unknown): FileListDetails | null {
  if (typeof result !== "object" || result === null) return null;
  const details = (result as { details?: unknown }).details;
  if (typeof details !== "object" || details === null) return null;
  const entries = (details as { entries?: unknown }).entries;
  if (!Array.isArray(entries)) return null;
  const files: FileEntry[] = entries.filter(isFileEntry);
  const record = details as Record<string, unknown>;
  const totalMatched = record["totalMatched"];
  const list: FileListDetails = {
    folder: typeof record["folder"] === "string" ? record["folder"] : "",
    path: typeof record["path"] === "string" ? record["path"] : "",
    entries: files,
    totalMatched: typeof totalMatched === "number" ? totalMatched : files.length,
  };
  if (record["scanTruncated"] === true) list.scanTruncated = true;
  const nextCursor = record["nextCursor"];
  if (typeof nextCursor === "string") list.nextCursor = nextCursor;
  return list;
}

function isFileEntry(value: unknown): value is FileEntry {
  if (typeof value !== "object" || value === null) return false;
  const entry = value as Record<string, unknown>;
  return typeof entry["name"] === "string" && typeof entry["size"] === "number";
}

/** The text a tool result or progress update carries (its text content blocks). */
export function resultText(result: unknown): string {
  if (typeof result !== "object" || result === null) return "";
  const content = (result as { content?: unknown }).content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: unknown) =>
      typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text"
        ? String((block as { text?: unknown }).text ?? "")
        : "",
    )
    .join("");
}

/** The model of the newest answer that names one: the model actually used, which a change applies to only from the next turn. */
export function lastAnswerModel(transcript: readonly TranscriptItem[]): string | null {
  for (let index = transcript.length - 1; index >= 0; index -= 1) {
    const item = transcript[index];
    if (item?.kind === "assistant" && item.model !== undefined) return item.model;
  }
  return null;
}
