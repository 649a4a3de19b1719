// The chat's state and its pure reducer. `applyEnvelope(state, envelope)` folds one backend envelope into the
// state; `chatReducer` adds the UI's own intents (Send pressed, a command rejected, a conversation loaded).
// No IO, no module-level mutable state: every id comes from the state's own counter. Derived facts (is Send
// enabled, which tool card runs) are in ./selectors.
import type {
  AgentEvent,
  AgentMessage,
  AppInfo,
  AppState,
  AssistantMessage,
  CommandError,
  Envelope,
  HostNotice,
  StopReason,
  UserMessage,
} from "../ipc/wire";
import { PROTOCOL_VERSION } from "../ipc/wire";
import { isInterruptedMessage } from "../ipc/conversations";
import { applyAssistantEvent, blocksFromMessage, type BlockView } from "./assistant-blocks";

/** The book's run states: `running` from agent_start to agent_end, `settling` until the host's idle notice. */
export type RunStatus = "idle" | "running" | "settling";

/** `interrupted`: the app stopped (a crash) before this answer was complete; it came back from storage. */
export type AssistantStatus = "streaming" | "done" | "stopped" | "error" | "interrupted";

export interface UserItem {
  kind: "user";
  id: string;
  text: string;
  imageCount: number;
  /** `pending` until the host echoes the prompt (message_start); `failed` when the command was refused. */
  delivery: "pending" | "sent" | "failed";
}

export interface AssistantItem {
  kind: "assistant";
  id: string;
  blocks: readonly BlockView[];
  status: AssistantStatus;
  stopReason?: StopReason;
  errorMessage?: string;
  /** Retry was pressed for this failed answer (its Retry button goes away). */
  retried: boolean;
}

export type TranscriptItem = UserItem | AssistantItem;

export type ToolRunStatus = "running" | "done" | "error";

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

/** An error shown in the banner: a refused command, a host notice or a refused envelope. */
export interface Banner {
  source: "command" | "notice" | "protocol";
  kind: string;
  message: string;
}

/** What the host last said about the agent (the `state` notice). */
export interface BackendRunState {
  isStreaming: boolean;
  pendingToolCalls: readonly string[];
  errorMessage?: string;
}

export interface ChatState {
  runStatus: RunStatus;
  /** A prompt or continue_run was invoked and its run has not started yet. */
  submitting: boolean;
  /** Stop was pressed during this run. */
  stopRequested: boolean;
  backend: BackendRunState;
  transcript: readonly TranscriptItem[];
  /** The assistant item between its message_start and message_end. */
  streamingAssistantId: string | null;
  tools: Readonly<Record<string, ToolRun>>;
  /** Turns of the current (or last) run. */
  turnCount: number;
  /** Tokens used by this conversation's answers so far (sum of usage.totalTokens). */
  tokensUsed: number;
  banner: Banner | null;
  /** Set once an envelope of an unknown protocol version arrived; such envelopes are never applied. */
  protocolError: string | null;
  appInfo: AppInfo | null;
  lastSeq: number;
  nextId: number;
  /** The conversation shown (`AppState.conversationId` of the last load), null before one is loaded. */
  conversationId: string | null;
  /**
   * Bumped whenever another conversation is shown (switch, new, delete). Runs are tagged with the generation they
   * were sent in; envelopes and command results of an older generation belong to a conversation no longer
   * shown (it goes on in the background) and are dropped.
   */
  generation: number;
  /** Changes whenever the conversation list may have changed: titles, order, which one is streaming. */
  listRevision: number;
}

export type ChatAction =
  /** Envelopes from the run's Channel that arrived together, in order (one frame's worth). */
  | { type: "envelopes"; envelopes: readonly Envelope[]; generation?: number }
  /** Send was pressed: the prompt command is being invoked with this text. */
  | { type: "prompt_submitted"; text: string; imageCount: number }
  /** Retry was pressed on this failed answer: continue_run is being invoked. */
  | { type: "continue_submitted"; assistantId: string }
  /** Stop was pressed: abort is being invoked. */
  | { type: "stop_requested" }
  /** prompt / continue_run resolved (the host already sent idle, which is what re-enables Send). */
  | { type: "run_command_settled"; generation?: number }
  /** A command rejected with `{kind, message}`. */
  | { type: "command_failed"; command: string; error: CommandError; generation?: number }
  /**
   * get_state (`startup`, or `refresh` while a run this window cannot follow is active) or new_conversation
   * (`new`) answered: the transcript is replaced by the host's. A startup answer that arrives after the user
   * already sent something is ignored, and so is a refresh once this window runs its own prompt.
   * `switch` (the sidebar opened a conversation, or reloaded after deleting the shown one) and `new` start a new
   * generation: the run state, the banner and the transcript are the loaded conversation's alone.
   */
  | { type: "conversation_loaded"; appState: AppState; origin: "startup" | "refresh" | "new" | "switch" }
  | { type: "banner_dismissed" }
  | { type: "app_info_loaded"; appInfo: AppInfo };

/** Progress updates kept per tool card; older ones are dropped (the card shows the latest). */
export const MAX_TOOL_UPDATES = 20;

export const initialChatState: ChatState = {
  runStatus: "idle",
  submitting: false,
  stopRequested: false,
  backend: { isStreaming: false, pendingToolCalls: [] },
  transcript: [],
  streamingAssistantId: null,
  tools: {},
  turnCount: 0,
  tokensUsed: 0,
  banner: null,
  protocolError: null,
  appInfo: null,
  lastSeq: 0,
  nextId: 1,
  conversationId: null,
  generation: 0,
  listRevision: 0,
};

/** An action tagged with a generation other than the current one belongs to a conversation no longer shown. */
function isStale(state: ChatState, generation: number | undefined): boolean {
  return generation !== undefined && generation !== state.generation;
}

export function chatReducer(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case "envelopes":
      if (isStale(state, action.generation)) return state;
      return action.envelopes.reduce(applyEnvelope, state);
    case "prompt_submitted": {
      const text = action.text.trim();
      if (text === "" && action.imageCount === 0) return state;
      const user: UserItem = {
        kind: "user",
        id: `u${state.nextId}`,
        text,
        imageCount: action.imageCount,
        delivery: "pending",
      };
      return {
        ...state,
        transcript: [...state.transcript, user],
        nextId: state.nextId + 1,
        submitting: true,
        stopRequested: false,
        banner: null,
        listRevision: state.listRevision + 1,
      };
    }
    case "continue_submitted":
      return {
        ...state,
        transcript: state.transcript.map((item) =>
          item.kind === "assistant" && item.id === action.assistantId ? { ...item, retried: true } : item,
        ),
        submitting: true,
        stopRequested: false,
        banner: null,
      };
    case "stop_requested":
      return { ...state, stopRequested: true };
    case "run_command_settled":
      if (isStale(state, action.generation)) return state;
      return { ...state, submitting: false, listRevision: state.listRevision + 1 };
    case "command_failed":
      if (isStale(state, action.generation)) return state;
      return {
        ...state,
        submitting: action.command === "prompt" || action.command === "continue_run" ? false : state.submitting,
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
        banner: { source: "command", kind: action.error.kind, message: action.error.message },
      };
    case "conversation_loaded":
      if (
        action.origin === "startup" &&
        (state.transcript.length > 0 || state.runStatus !== "idle" || state.generation > 0)
      ) {
        return state;
      }
      if (action.origin === "refresh" && (state.runStatus !== "idle" || state.submitting)) return state;
      if (
        action.origin === "refresh" &&
        action.appState.conversationId !== undefined &&
        state.conversationId !== null &&
        action.appState.conversationId !== state.conversationId
      ) {
        return state;
      }
      if (action.origin === "switch" || action.origin === "new") {
        return loadConversation(
          {
            ...state,
            runStatus: "idle",
            submitting: false,
            stopRequested: false,
            banner: null,
            lastSeq: 0,
            generation: state.generation + 1,
            listRevision: state.listRevision + 1,
          },
          action.appState,
        );
      }
      return {
        ...loadConversation(state, action.appState),
        // A refresh that finds the followed run ended changes the list (the streaming mark, the order).
        listRevision:
          action.origin === "refresh" && state.backend.isStreaming === action.appState.isStreaming
            ? state.listRevision
            : state.listRevision + 1,
      };
    case "banner_dismissed":
      return { ...state, banner: null };
    case "app_info_loaded":
      return { ...state, appInfo: action.appInfo };
    default:
      return assertNever(action);
  }
}

function assertNever(action: never): never {
  throw new Error(`unhandled chat action: ${JSON.stringify(action)}`);
}

/** Folds one envelope into the state: `(state, envelope) => state`. */
export function applyEnvelope(state: ChatState, envelope: Envelope): ChatState {
  if (envelope.v !== PROTOCOL_VERSION) {
    const message = `The app's backend speaks protocol version ${String(envelope.v)}, this window understands version ${PROTOCOL_VERSION}. Update or reinstall Pi Desktop.`;
    return {
      ...state,
      protocolError: message,
      banner: { source: "protocol", kind: "protocol", message },
    };
  }
  const sequenced: ChatState = { ...state, lastSeq: envelope.seq };
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

function applyNotice(state: ChatState, notice: HostNotice): ChatState {
  switch (notice.type) {
    case "state": {
      const backend: BackendRunState =
        notice.errorMessage === undefined
          ? { isStreaming: notice.isStreaming, pendingToolCalls: notice.pendingToolCalls }
          : {
              isStreaming: notice.isStreaming,
              pendingToolCalls: notice.pendingToolCalls,
              errorMessage: notice.errorMessage,
            };
      return { ...state, backend };
    }
    case "idle":
      return {
        ...finishStreamingAssistant(state, "done"),
        runStatus: "idle",
        submitting: false,
        stopRequested: false,
        backend: { ...state.backend, isStreaming: false },
      };
    case "error":
      return { ...state, banner: { source: "notice", kind: notice.source, message: notice.message } };
    default:
      return ignoreUnknown(notice, state);
  }
}

function applyEvent(state: ChatState, event: AgentEvent): ChatState {
  switch (event.type) {
    case "agent_start":
      return { ...state, runStatus: "running", submitting: false, turnCount: 0 };
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
      const ended: ToolRun = { ...run, status: event.isError ? "error" : "done", result: event.result };
      return { ...state, tools: { ...state.tools, [event.toolCallId]: ended } };
    }
    default:
      return ignoreUnknown(event, state);
  }
}

function newToolRun(toolCallId: string, toolName: string, args: unknown): ToolRun {
  return { toolCallId, toolName, args, status: "running", updates: [] };
}

function messageStarted(state: ChatState, message: AgentMessage): ChatState {
  switch (message.role) {
    case "user": {
      const { text, imageCount } = userText(message);
      const pendingIndex = state.transcript.findIndex((item) => item.kind === "user" && item.delivery === "pending");
      if (pendingIndex >= 0) {
        // The host echoes the prompt the user just sent: confirm it instead of showing it twice.
        const transcript = state.transcript.map((item, index) =>
          index === pendingIndex && item.kind === "user" ? { ...item, text, imageCount, delivery: "sent" as const } : item,
        );
        return { ...state, transcript };
      }
      // A steering or follow-up message, or a prompt from elsewhere.
      const user: UserItem = { kind: "user", id: `u${state.nextId}`, text, imageCount, delivery: "sent" };
      return { ...state, transcript: [...state.transcript, user], nextId: state.nextId + 1 };
    }
    case "assistant": {
      const assistant: AssistantItem = {
        kind: "assistant",
        id: `a${state.nextId}`,
        blocks: blocksFromMessage(message.content, false),
        status: "streaming",
        retried: false,
      };
      const settled = finishStreamingAssistant(state, "done");
      return {
        ...settled,
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
  const ended = updateAssistant(state, id, (item) => finalAssistant(item.id, message, item.retried));
  return {
    ...ended,
    streamingAssistantId: null,
    tokensUsed: state.tokensUsed + (message.usage?.totalTokens ?? 0),
  };
}

/** The item for a complete assistant message: its final blocks, and a status from its stop reason. */
function finalAssistant(id: string, message: AssistantMessage, retried: boolean): AssistantItem {
  const item: AssistantItem = {
    kind: "assistant",
    id,
    blocks: blocksFromMessage(message.content, true),
    status: isInterruptedMessage(message) ? "interrupted" : statusFromStopReason(message.stopReason),
    stopReason: message.stopReason,
    retried,
  };
  return message.errorMessage === undefined ? item : { ...item, errorMessage: message.errorMessage };
}

export function statusFromStopReason(stopReason: StopReason): AssistantStatus {
  switch (stopReason) {
    case "pending":
      return "streaming";
    case "stop":
    case "length":
    case "toolUse":
    case "deferred":
      return "done";
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

function userText(message: UserMessage): { text: string; imageCount: number } {
  if (typeof message.content === "string") return { text: message.content, imageCount: 0 };
  let text = "";
  let imageCount = 0;
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else imageCount += 1;
  }
  return { text, imageCount };
}

/** Replaces the transcript with the host's conversation (on start-up and after New conversation). */
function loadConversation(state: ChatState, appState: AppState): ChatState {
  let nextId = state.nextId;
  const transcript: TranscriptItem[] = [];
  const tools: Record<string, ToolRun> = {};
  let tokensUsed = 0;
  for (const message of appState.messages) {
    switch (message.role) {
      case "user": {
        const { text, imageCount } = userText(message);
        transcript.push({ kind: "user", id: `u${nextId}`, text, imageCount, delivery: "sent" });
        nextId += 1;
        break;
      }
      case "assistant":
        transcript.push(finalAssistant(`a${nextId}`, message, false));
        tokensUsed += message.usage?.totalTokens ?? 0;
        nextId += 1;
        break;
      case "toolResult":
        tools[message.toolCallId] = {
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          args: undefined,
          status: message.isError ? "error" : "done",
          updates: [],
          result: { content: message.content, details: message.details },
        };
        break;
      default:
        // Custom message roles are the host's business; the transcript does not show them.
        break;
    }
  }
  const backend: BackendRunState =
    appState.errorMessage === undefined
      ? { isStreaming: appState.isStreaming, pendingToolCalls: appState.pendingToolCalls }
      : {
          isStreaming: appState.isStreaming,
          pendingToolCalls: appState.pendingToolCalls,
          errorMessage: appState.errorMessage,
        };
  return {
    ...state,
    transcript,
    tools,
    tokensUsed,
    turnCount: 0,
    streamingAssistantId: null,
    backend,
    nextId,
    conversationId: appState.conversationId ?? state.conversationId,
  };
}
