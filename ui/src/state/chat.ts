// One conversation's state and its pure reducer. `applyEnvelope(state, envelope)` folds one envelope of this
// conversation into the state; `chatReducer` adds the UI's own intents (Send pressed, the run accepted, a command
// rejected). The run state comes from envelopes alone: a run is active from its first envelope to its `idle`;
// the only other fact is that this window asked for a run the host has not shown yet (`submitting`). No IO, no
// module-level mutable state: every id comes from the state's own counter. Derived facts (is Send enabled,
// which tool card runs) are in ./selectors; the window's state of several conversations is in ./window.
import type {
  AgentEvent,
  AgentMessage,
  ApprovalRequest,
  AssistantMessage,
  CommandError,
  Envelope,
  HostNotice,
  StopReason,
  Usage,
  UserMessage,
} from "../ipc/wire";
import type { RetryNoticeView } from "../ipc/bindings/RetryNoticeView";
import { isInterruptedMessage } from "../ipc/conversations";
import { applyAssistantEvent, blocksFromMessage, type BlockView } from "./assistant-blocks";
import { applyQueueNotice, withAnswering, type QueuedChip } from "./queue";
import { matchVersions, type ItemVersion } from "./versions";
import { userContent, type UserAttachment } from "./user-attachments";

/** The book's run states: `running` from agent_start to agent_end, `settling` until the host's idle notice. */
export type RunStatus = "idle" | "running" | "settling";

/**
 * `interrupted`: the app stopped (a crash) before this answer was complete; it came back from storage.
 * `truncated`: the answer ended at the output length limit (pi's stopReason `length`): not done, it can be
 * continued.
 */
export type AssistantStatus = "streaming" | "done" | "stopped" | "error" | "interrupted" | "truncated";

export interface UserItem {
  kind: "user";
  id: string;
  text: string;
  imageCount: number;
  /** Its images and attached files, in order; absent when it has none. */
  attachments?: readonly UserAttachment[];
  /** `pending` until the host echoes the prompt (message_start); `failed` when the command was refused. */
  delivery: "pending" | "sent" | "failed";
  /** The message's timestamp, once the host echoed it (what versions are matched by). */
  timestamp?: number;
}

export interface AssistantItem {
  kind: "assistant";
  id: string;
  blocks: readonly BlockView[];
  status: AssistantStatus;
  stopReason?: StopReason;
  errorMessage?: string;
  /** The model that wrote it (the message's `model`), when the message names one. */
  model?: string;
  /** Its tokens and cost, once the message ended (the provider's report; zeros when it reported none). */
  usage?: Usage;
  /** Retry was pressed for this failed answer (its Retry button goes away). */
  retried: boolean;
  /** The message's timestamp (what versions are matched by). */
  timestamp?: number;
  /** This answer continues the one before it, which stopped at the length limit; they are shown as one. */
  continuation?: boolean;
}

export type TranscriptItem = UserItem | AssistantItem;

/** `stopped`: the call failed after the user pressed Stop, so Stop cancelled it (it did not fail by itself). */
export type ToolRunStatus = "running" | "done" | "error" | "stopped";

/**
 * A tool call's approval question: `waiting` for the user, `answering` while the answer is on its way, then how
 * it ended (`allowed`, `denied`, or `withdrawn` by Stop).
 */
export interface ApprovalView {
  request: ApprovalRequest;
  status: "waiting" | "answering" | "allowed" | "denied" | "withdrawn";
}

/** One tool execution, keyed by tool call id. */
export interface ToolRun {
  toolCallId: string;
  toolName: string;
  args: unknown;
  status: ToolRunStatus;
  /** The latest progress updates (`partialResult`s), oldest first, at most MAX_TOOL_UPDATES. */
  updates: readonly unknown[];
  /** The finalized AgentToolResult (`content`, `details`, …) once the call ended. */
  result?: unknown;
}

/**
 * An error shown in the banner, worded by the banner in the UI's language: a refused command (`code` is its
 * `CommandError.code`), a host notice (`code` is the notice's source) or a refused envelope (`code` "protocol").
 * `detail` is what the failing part said.
 */
export interface Banner {
  source: "command" | "notice" | "protocol";
  kind: string;
  code: string;
  detail?: string;
}

function commandBanner(error: CommandError): Banner {
  const banner: Banner = { source: "command", kind: error.kind, code: error.code };
  if (error.detail !== undefined) banner.detail = error.detail;
  return banner;
}

export interface ChatState {
  /** The conversation (`AppState.conversationId`); "" for one the host did not name. */
  conversationId: string;
  runStatus: RunStatus;
  /** The run in progress, from its first envelope to its `idle`. */
  runId: number | null;
  /** The highest run id seen in an envelope. */
  lastRunId: number;
  /**
   * This window asked for a run (prompt or continue_run) and has not seen it yet: the command is on its way, or
   * it was accepted as run `awaitedRunId` and that run's first envelope has not arrived.
   */
  submitting: boolean;
  awaitedRunId: number | null;
  /** Stop was pressed during this run. */
  stopRequested: boolean;
  transcript: readonly TranscriptItem[];
  /** The assistant item between its message_start and message_end. */
  streamingAssistantId: string | null;
  tools: Readonly<Record<string, ToolRun>>;
  /** Approval questions by tool call id. */
  approvals: Readonly<Record<string, ApprovalView>>;
  /**
   * Steering and follow-up messages the host queued and the loop has not consumed, in the order queued. A
   * consumed one shows in the transcript where its user message_start put it.
   */
  queue: readonly QueuedChip[];
  /** The model request is being retried after a failure before any answer (a 429, a 5xx, a lost connection). */
  retry: RetryNoticeView | null;
  /** Turns of the current (or last) run. */
  turnCount: number;
  banner: Banner | null;
  /** Where items stand among their versions, by item id (from the host's `versions`). */
  versions: Readonly<Record<string, ItemVersion>>;
  /** A continuation request came: the next answer continues the one before it. */
  continuing: boolean;
  /** The transcript before a regenerate or edit cut it; back if the host refuses. */
  beforeBranch: readonly TranscriptItem[] | null;
  /** The last envelope applied; older or repeated ones are ignored. */
  lastSeq: number;
  nextId: number;
  /**
   * User and assistant messages of the transcript's beginning not here yet: a long conversation is opened from
   * its end and the rest follows (window action `earlier_loaded`). 0 when the transcript is whole.
   */
  leftOut: number;
}

export type ChatAction =
  /** Envelopes of this conversation that arrived together, in order (one frame's worth). */
  | { type: "envelopes"; envelopes: readonly Envelope[] }
  /** Send was pressed: the prompt command is being invoked with this text. */
  | { type: "prompt_submitted"; text: string; imageCount: number; attachments?: readonly UserAttachment[] }
  /** Retry was pressed on this failed answer: continue_run is being invoked. */
  | { type: "continue_submitted"; assistantId: string }
  /** Regenerate was pressed on this answer: it and what follows leave the transcript, regenerate is invoked. */
  | { type: "regenerate_submitted"; assistantId: string }
  /** An edited question was sent in place of this one: it and what follows leave, edit_message is invoked. */
  | { type: "edit_submitted"; userId: string; text: string }
  /** Continue was pressed on the answer cut off by the length limit: continue_answer is invoked. */
  | { type: "continue_answer_submitted" }
  /** prompt / continue_run resolved: the host accepted run `runId` (its envelopes may already have come). */
  | { type: "run_accepted"; runId: number }
  /** The host ran the prompt in another conversation: nothing comes here, the unconfirmed message goes. */
  | { type: "run_taken_elsewhere" }
  /** Stop was pressed: abort is being invoked. */
  | { type: "stop_requested" }
  /** The user answered the approval question of this tool call: resolve_approval is being invoked. */
  | { type: "approval_answered"; toolCallId: string }
  /** resolve_approval was refused: the question (if it still waits) can be answered again. */
  | { type: "approval_answer_failed"; toolCallId: string; error: CommandError }
  /** Cancel, discard or steer was pressed on queued message `id`: the command is on its way. */
  | { type: "queued_answer_requested"; id: number }
  /** Send now was pressed on queued message `id` between runs: like Send, this window asks for a run. */
  | { type: "queued_send_requested"; id: number }
  /** Send now found a run in progress: the message waits as steering in it, and this window asks for no run. */
  | { type: "queued_send_steered" }
  /** `command` about queued message `id` was refused; a refused send_queued asks for no run any more. */
  | { type: "queued_answer_failed"; id: number; command: string; error: CommandError }
  /** A command rejected with `{kind, message}`. */
  | { type: "command_failed"; command: string; error: CommandError }
  | { type: "banner_dismissed" };

/** Progress updates kept per tool card; older ones are dropped (the card shows the latest). */
export const MAX_TOOL_UPDATES = 20;

export const initialChatState: ChatState = {
  retry: null,
  conversationId: "",
  runStatus: "idle",
  runId: null,
  lastRunId: 0,
  submitting: false,
  awaitedRunId: null,
  stopRequested: false,
  transcript: [],
  streamingAssistantId: null,
  tools: {},
  approvals: {},
  queue: [],
  turnCount: 0,
  banner: null,
  versions: {},
  continuing: false,
  beforeBranch: null,
  lastSeq: 0,
  nextId: 1,
  leftOut: 0,
};

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case "envelopes":
      return action.envelopes.reduce(applyEnvelope, state);
    case "prompt_submitted": {
      const text = action.text.trim();
      const attachments = action.attachments ?? [];
      if (text === "" && action.imageCount === 0 && attachments.length === 0) return state;
      const user: UserItem = withAttachments(
        { kind: "user", id: `u${state.nextId}`, text, imageCount: action.imageCount, delivery: "pending" },
        attachments,
      );
      return {
        ...state,
        transcript: [...state.transcript, user],
        nextId: state.nextId + 1,
        submitting: true,
        awaitedRunId: null,
        stopRequested: false,
        banner: null,
      };
    }
    case "continue_submitted":
      return {
        ...state,
        transcript: state.transcript.map((item) =>
          item.kind === "assistant" && item.id === action.assistantId ? { ...item, retried: true } : item,
        ),
        submitting: true,
        awaitedRunId: null,
        stopRequested: false,
        banner: null,
      };
    case "regenerate_submitted": {
      const index = state.transcript.findIndex((item) => item.id === action.assistantId);
      if (index < 0) return state;
      return { ...asking(state), beforeBranch: state.transcript, transcript: state.transcript.slice(0, index) };
    }
    case "edit_submitted": {
      const index = state.transcript.findIndex((item) => item.id === action.userId);
      const text = action.text.trim();
      if (index < 0 || text === "") return state;
      const user: UserItem = { kind: "user", id: `u${state.nextId}`, text, imageCount: 0, delivery: "pending" };
      return {
        ...asking(state),
        beforeBranch: state.transcript,
        transcript: [...state.transcript.slice(0, index), user],
        nextId: state.nextId + 1,
      };
    }
    case "continue_answer_submitted":
      return { ...asking(state), beforeBranch: state.transcript };
    case "run_accepted":
      // The run's envelopes travel apart from the command's answer and may have come first.
      return state.lastRunId >= action.runId
        ? { ...state, submitting: false, awaitedRunId: null, beforeBranch: null }
        : { ...state, awaitedRunId: action.runId, beforeBranch: null };
    case "run_taken_elsewhere":
      return {
        ...state,
        submitting: false,
        awaitedRunId: null,
        transcript: state.transcript.filter((item) => item.kind !== "user" || item.delivery !== "pending"),
      };
    case "stop_requested":
      return { ...state, stopRequested: true };
    case "queued_answer_requested":
      return { ...state, queue: withAnswering(state.queue, action.id, true) };
    case "queued_send_requested":
      return {
        ...state,
        queue: withAnswering(state.queue, action.id, true),
        submitting: true,
        awaitedRunId: null,
        stopRequested: false,
        banner: null,
      };
    case "queued_send_steered":
      return { ...state, submitting: false, awaitedRunId: null };
    case "queued_answer_failed": {
      const sendFailed = action.command === "send_queued";
      return {
        ...state,
        queue: withAnswering(state.queue, action.id, false),
        submitting: sendFailed ? false : state.submitting,
        awaitedRunId: sendFailed ? null : state.awaitedRunId,
        banner: commandBanner(action.error),
      };
    }
    case "approval_answered":
      return withApprovalStatus(state, action.toolCallId, "waiting", "answering");
    case "approval_answer_failed":
      return {
        ...withApprovalStatus(state, action.toolCallId, "answering", "waiting"),
        banner: commandBanner(action.error),
      };
    case "command_failed":
      if (isRunCommand(action.command)) {
        // Asked during a run, nothing changed here: only the host's reason shows.
        if (state.beforeBranch === null) return { ...state, banner: commandBanner(action.error) };
        // The host refused before anything ran: the transcript a regenerate or edit cut comes back.
        return {
          ...state,
          submitting: false,
          awaitedRunId: null,
          transcript: state.beforeBranch ?? state.transcript,
          beforeBranch: null,
          banner: commandBanner(action.error),
        };
      }
      return {
        ...state,
        submitting: action.command === "prompt" || action.command === "continue_run" ? false : state.submitting,
        awaitedRunId: action.command === "prompt" || action.command === "continue_run" ? null : state.awaitedRunId,
        transcript:
          action.command === "prompt"
            ? state.transcript.map((item) =>
                item.kind === "user" && item.delivery === "pending" ? { ...item, delivery: "failed" } : item,
              )
            : action.command === "continue_run"
              ? state.transcript.map((item) =>
                  item.kind === "assistant" && item.retried ? { ...item, retried: false } : item,
                )
              : state.transcript,
        banner: commandBanner(action.error),
      };
    case "banner_dismissed":
      return { ...state, banner: null };
    default:
      return assertNever(action);
  }
}

function assertNever(action: never): never {
  throw new Error(`unhandled chat action: ${JSON.stringify(action)}`);
}

/** The commands of versions and continuations that start a run. */
function isRunCommand(command: string): boolean {
  return command === "regenerate" || command === "edit_message" || command === "continue_answer";
}

/** This window asks for a run (as Send does). */
function asking(state: ChatState): ChatState {
  return { ...state, submitting: true, awaitedRunId: null, stopRequested: false, banner: null };
}

/**
 * Folds one envelope of this conversation into the state: `(state, envelope) => state`. The window checked its
 * protocol version. One already applied (a `seq` not above `lastSeq`) changes nothing.
 */
export function applyEnvelope(state: ChatState, envelope: Envelope): ChatState {
  if (envelope.seq <= state.lastSeq) return state;
  const sequenced: ChatState = { ...withRun(state, envelope.runId), lastSeq: envelope.seq };
  switch (envelope.kind) {
    case "event":
      return applyEvent(sequenced, envelope.event);
    case "notice":
      return applyNotice(sequenced, envelope.notice);
    default:
      return ignoreUnknown(envelope, state);
  }
}

/** What a newer host may add (an envelope kind, an event, a notice) is ignored, as the bump rule says. */
function ignoreUnknown(_unknown: never, state: ChatState): ChatState {
  return state;
}

/** An envelope of run `runId` makes it the run in progress (and ends the wait for it, if this window asked). */
function withRun(state: ChatState, runId: number | undefined): ChatState {
  if (runId === undefined || (runId === state.runId && runId <= state.lastRunId)) return state;
  const arrived = state.awaitedRunId !== null && runId >= state.awaitedRunId;
  return {
    ...state,
    runId,
    lastRunId: Math.max(state.lastRunId, runId),
    runStatus: state.runStatus === "idle" ? "running" : state.runStatus,
    submitting: arrived ? false : state.submitting,
    awaitedRunId: arrived ? null : state.awaitedRunId,
  };
}

function applyNotice(state: ChatState, notice: HostNotice): ChatState {
  switch (notice.type) {
    case "state":
      // The run state follows the events; the host's summary adds nothing the window needs.
      return state;
    case "approval_requested": {
      const { type: _type, ...request } = notice;
      return { ...state, approvals: { ...state.approvals, [request.toolCallId]: { request, status: "waiting" } } };
    }
    case "approval_resolved": {
      const view = state.approvals[notice.toolCallId];
      if (view === undefined) return state;
      return { ...state, approvals: { ...state.approvals, [notice.toolCallId]: { ...view, status: notice.outcome } } };
    }
    case "idle":
      return {
        ...finishStreamingAssistant(state, "done"),
        runStatus: "idle",
        runId: null,
        stopRequested: false,
        retry: null,
      };
    case "model_retry": {
      const { type: _type, ...retry } = notice;
      return { ...state, retry };
    }
    case "turn_request":
      // What a turn sent is the loop inspector's; the transcript shows the answer.
      return state;
    case "versions":
      return { ...state, versions: matchVersions(state.transcript, notice.versions) };
    case "error":
      return { ...state, banner: { source: "notice", kind: notice.source, code: notice.source, detail: notice.message } };
    case "message_queued":
    case "queued_message_consumed":
    case "queued_message_cancelled":
    case "queued_messages_held":
      return { ...state, queue: applyQueueNotice(state.queue, notice) };
    default:
      return ignoreUnknown(notice, state);
  }
}

function applyEvent(state: ChatState, event: AgentEvent): ChatState {
  switch (event.type) {
    case "agent_start":
      return { ...state, runStatus: "running", turnCount: 0 };
    case "agent_end":
      return { ...finishStreamingAssistant(state, "done"), runStatus: "settling" };
    case "turn_start":
      return { ...state, turnCount: state.turnCount + 1 };
    case "turn_end":
      return state;
    case "message_start":
      return messageStarted(state, event.message);
    case "message_update": {
      const id = state.streamingAssistantId;
      if (id === null) return state;
      return updateAssistant(state, id, (item) => ({
        ...item,
        blocks: applyAssistantEvent(item.blocks, event.assistantMessageEvent),
      }));
    }
    case "message_end":
      return messageEnded(state, event.message);
    case "tool_execution_start":
      return {
        ...state,
        tools: {
          ...state.tools,
          [event.toolCallId]: {
            toolCallId: event.toolCallId,
            toolName: event.toolName,
            args: event.args,
            status: "running",
            updates: [],
          },
        },
      };
    case "tool_execution_update": {
      const run = state.tools[event.toolCallId] ?? newToolRun(event.toolCallId, event.toolName, event.args);
      const updates = [...run.updates, event.partialResult].slice(-MAX_TOOL_UPDATES);
      return { ...state, tools: { ...state.tools, [event.toolCallId]: { ...run, updates } } };
    }
    case "tool_execution_end": {
      const run = state.tools[event.toolCallId] ?? newToolRun(event.toolCallId, event.toolName, undefined);
      // Failed after Stop, having run: Stop cancelled it. A withdrawn question never ran (the card says so).
      const ran = state.approvals[event.toolCallId]?.status !== "withdrawn";
      const status = !event.isError ? "done" : state.stopRequested && ran ? "stopped" : "error";
      const ended: ToolRun = { ...run, status, result: event.result };
      return { ...state, tools: { ...state.tools, [event.toolCallId]: ended } };
    }
    default:
      return ignoreUnknown(event, state);
  }
}

/** Moves a question from `from` to `to`; any other status stays. */
function withApprovalStatus(
  state: ChatState,
  toolCallId: string,
  from: ApprovalView["status"],
  to: ApprovalView["status"],
): ChatState {
  const view = state.approvals[toolCallId];
  if (view === undefined || view.status !== from) return state;
  return { ...state, approvals: { ...state.approvals, [toolCallId]: { ...view, status: to } } };
}

function newToolRun(toolCallId: string, toolName: string, args: unknown): ToolRun {
  return { toolCallId, toolName, args, status: "running", updates: [] };
}

function messageStarted(state: ChatState, message: AgentMessage): ChatState {
  // A retried request that got through: its answer starts.
  if (state.retry !== null && message.role === "assistant") return messageStarted({ ...state, retry: null }, message);
  switch (message.role) {
    case "user": {
      const { text, imageCount, attachments } = userText(message);
      const pendingIndex = state.transcript.findIndex((item) => item.kind === "user" && item.delivery === "pending");
      if (pendingIndex >= 0) {
        // The host echoes the prompt the user just sent: confirm it instead of showing it twice.
        const transcript = state.transcript.map((item, index) =>
          index === pendingIndex && item.kind === "user"
            ? withTimestamp(withAttachments({ ...item, text, imageCount, delivery: "sent" as const }, attachments), message.timestamp)
            : item,
        );
        return { ...state, transcript };
      }
      // A steering or follow-up message where the loop injected it (its chip goes with the notice that follows),
      // a queued message sent as a prompt, or a prompt from elsewhere.
      const user = withTimestamp<UserItem>(
        withAttachments({ kind: "user", id: `u${state.nextId}`, text, imageCount, delivery: "sent" }, attachments),
        message.timestamp,
      );
      return { ...state, transcript: [...state.transcript, user], nextId: state.nextId + 1 };
    }
    case "continuation":
      return { ...state, continuing: true };
    case "assistant": {
      const assistant = withTimestamp<AssistantItem>(
        {
          kind: "assistant",
          id: `a${state.nextId}`,
          blocks: blocksFromMessage(message.content, false),
          status: "streaming",
          retried: false,
        },
        message.timestamp,
      );
      if (typeof message.model === "string" && message.model !== "") assistant.model = message.model;
      if (state.continuing) assistant.continuation = true;
      const settled = finishStreamingAssistant(state, "done");
      return {
        ...settled,
        continuing: false,
        transcript: [...settled.transcript, assistant],
        streamingAssistantId: assistant.id,
        nextId: state.nextId + 1,
      };
    }
    case "toolResult":
      // Tool results are shown on their tool call's card (tool_execution_end carries the same result).
      return state;
    default:
      return ignoreUnknown(message, state);
  }
}

function messageEnded(state: ChatState, message: AgentMessage): ChatState {
  if (message.role !== "assistant") return state;
  const id = state.streamingAssistantId;
  if (id === null) return state;
  const ended = updateAssistant(state, id, (item) => {
    const final = finalAssistant(item.id, message, item.retried, item.blocks);
    return item.continuation === true ? { ...final, continuation: true } : final;
  });
  return { ...ended, streamingAssistantId: null };
}

/**
 * The item for a complete assistant message: its final blocks (a `streamed` block's text from `built`, the blocks
 * its deltas built), and a status from its stop reason.
 */
export function finalAssistant(
  id: string,
  message: AssistantMessage,
  retried: boolean,
  built: readonly BlockView[] = [],
): AssistantItem {
  const item: AssistantItem = {
    kind: "assistant",
    id,
    blocks: blocksFromMessage(message.content, true, built),
    status: isInterruptedMessage(message) ? "interrupted" : statusFromStopReason(message.stopReason),
    stopReason: message.stopReason,
    retried,
  };
  if (message.timestamp !== undefined) item.timestamp = message.timestamp;
  if (typeof message.model === "string" && message.model !== "") item.model = message.model;
  if (message.usage !== undefined) item.usage = message.usage;
  return message.errorMessage === undefined ? item : { ...item, errorMessage: message.errorMessage };
}

export function statusFromStopReason(stopReason: StopReason): AssistantStatus {
  switch (stopReason) {
    case "pending":
      return "streaming";
    case "stop":
    case "toolUse":
    case "deferred":
      return "done";
    case "length":
      return "truncated";
    case "aborted":
      return "stopped";
    case "error":
      return "error";
    default:
      return ignoreUnknownStopReason(stopReason);
  }
}

function ignoreUnknownStopReason(_stopReason: never): AssistantStatus {
  return "done";
}

/** Closes an assistant item left streaming (a host that ended the run without its message_end). */
function finishStreamingAssistant(state: ChatState, status: AssistantStatus): ChatState {
  const id = state.streamingAssistantId;
  if (id === null) return state;
  const finished = updateAssistant(state, id, (item) => ({
    ...item,
    status,
    blocks: item.blocks.map((block) => ({ ...block, done: true })),
  }));
  return { ...finished, streamingAssistantId: null };
}

function updateAssistant(state: ChatState, id: string, update: (item: AssistantItem) => AssistantItem): ChatState {
  // The streaming item is almost always the last one; search from the end.
  for (let index = state.transcript.length - 1; index >= 0; index -= 1) {
    const item = state.transcript[index];
    if (item !== undefined && item.kind === "assistant" && item.id === id) {
      const transcript = [...state.transcript];
      transcript[index] = update(item);
      return { ...state, transcript };
    }
  }
  return state;
}

function withTimestamp<T extends TranscriptItem>(item: T, timestamp: number | undefined): T {
  return timestamp === undefined ? item : { ...item, timestamp };
}

export function userText(message: UserMessage): {
  text: string;
  imageCount: number;
  attachments: readonly UserAttachment[];
} {
  const imageCount = typeof message.content === "string" ? 0 : message.content.filter((block) => block.type === "image").length;
  return { ...userContent(message), imageCount };
}

/** `item` with `attachments`, or without the field when there are none. */
export function withAttachments(item: UserItem, attachments: readonly UserAttachment[]): UserItem {
  if (attachments.length > 0) return { ...item, attachments };
  const { attachments: _none, ...bare } = item;
  return bare;
}

