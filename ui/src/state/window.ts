// The window's state: every conversation it follows, keyed by id, and which one is shown. The window's one
// stream brings envelopes of all conversations; each goes to its own conversation's state (./chat), so a
// conversation answering in the background is up to date the moment it is shown again. Pure reducer, no IO.
import type { AppInfo, AppState, Envelope, LiveSnapshot } from "../ipc/wire";
import { PROTOCOL_VERSION } from "../ipc/wire";
import { chatReducer, initialChatState, type ChatAction, type ChatState, type TranscriptItem } from "./chat";
import { viewFromAppState, viewFromSnapshot } from "./conversation-load";
import { applyQueueNotice, chipsOf, isQueueNotice, type QueuedChip } from "./queue";

export interface WindowState {
  /** The conversation shown; null until the host named one (start-up). */
  shownId: string | null;
  /** The shown conversation and every one with a run in progress (or just ended in the background). */
  views: Readonly<Record<string, ChatState>>;
  appInfo: AppInfo | null;
  /** Set once an envelope of an unknown protocol version arrived; such envelopes are never applied. */
  protocolError: string | null;
  /** Changes whenever the conversation list may have changed: titles, order. */
  listRevision: number;
  /**
   * Queued messages of conversations the subscription snapshot named before the window followed them (a reload
   * between runs): the view loaded for one starts with them, and their queue notices keep them current until then.
   */
  snapshotQueues: Readonly<Record<string, readonly QueuedChip[]>>;
}

export type WindowAction =
  /** The window's stream began: the runs in progress then. */
  | { type: "subscribed"; snapshot: LiveSnapshot }
  /** Envelopes of any conversations that arrived together, in order (one frame's worth). */
  | { type: "envelopes"; envelopes: readonly Envelope[] }
  /**
   * get_state at start-up (`startup`), the sidebar opened a conversation or the shown one was deleted
   * (`switch`), or new_conversation answered (`new`). A conversation the window follows already is shown as
   * it stands (it is more recent than the answer); otherwise the host's transcript is. A start-up answer after
   * something was shown is ignored.
   */
  | { type: "conversation_loaded"; appState: AppState; origin: "startup" | "switch" | "new" }
  /**
   * The host changed which messages the conversation shows (another version, a pair deleted or restored) and
   * answered with its state: the view is rebuilt from it, keeping what only the window knows (its queue, the
   * envelopes applied).
   */
  | { type: "conversation_replaced"; appState: AppState }
  /**
   * The whole transcript of a conversation opened from its end (`leftOut` > 0), from get_state. It replaces the
   * view only while nothing runs there and the view is still that transcript's end, row for row; otherwise it is
   * ignored and asked for again once the conversation is idle.
   */
  | { type: "earlier_loaded"; appState: AppState }
  /** An intent or command result of one conversation (ignored once the window no longer follows it). */
  | { type: "chat"; conversationId: string; action: ChatAction }
  /**
   * The host named the conversation shown so far without an id (a first prompt before any conversation was
   * loaded, for example because no provider was configured at start-up): it is that conversation from now on.
   */
  | { type: "conversation_named"; conversationId: string }
  | { type: "app_info_loaded"; appInfo: AppInfo };

export const initialWindowState: WindowState = {
  shownId: null,
  views: {},
  appInfo: null,
  protocolError: null,
  listRevision: 0,
  snapshotQueues: {},
};

export function windowReducer(state: WindowState, action: WindowAction): WindowState {
  switch (action.type) {
    case "subscribed": {
      const views = { ...state.views };
      const queues = action.snapshot.queues ?? [];
      const queueOf = (id: string) => chipsOf(queues.find((queue) => queue.conversationId === id)?.messages ?? []);
      for (const run of action.snapshot.runs) {
        // A view that follows this run already and is as far along keeps what only the window knows.
        const followed = views[run.conversationId];
        if (followed === undefined || followed.runId !== run.runId || followed.lastSeq < run.lastSeq) {
          views[run.conversationId] = { ...viewFromSnapshot(run), queue: queueOf(run.conversationId) };
        }
      }
      const snapshotQueues: Record<string, readonly QueuedChip[]> = {};
      for (const queue of queues) {
        const followed = views[queue.conversationId];
        if (followed === undefined) snapshotQueues[queue.conversationId] = chipsOf(queue.messages);
        else if (followed.lastSeq < queue.lastSeq) views[queue.conversationId] = { ...followed, queue: chipsOf(queue.messages) };
      }
      return { ...state, views, snapshotQueues };
    }
    case "envelopes":
      return applyEnvelopes(state, action.envelopes);
    case "conversation_loaded": {
      if (action.origin === "startup" && state.shownId !== null) return state;
      const id = action.appState.conversationId ?? "";
      const { [id]: snapshotQueue, ...snapshotQueues } = state.snapshotQueues;
      const view = state.views[id] ?? { ...viewFromAppState(action.appState), queue: snapshotQueue ?? [] };
      const views: Record<string, ChatState> = { [id]: view };
      // Conversations that still answer stay followed; the others are loaded again when opened.
      for (const [otherId, other] of Object.entries(state.views)) {
        // A view the host still holds messages for (queued, or held after Stop) stays, as its session does.
        if (otherId !== id && (isAnswering(other) || other.queue.length > 0)) views[otherId] = other;
      }
      return { ...state, shownId: id, views, snapshotQueues, listRevision: state.listRevision + 1 };
    }
    case "conversation_replaced": {
      const id = action.appState.conversationId ?? "";
      const old = state.views[id];
      if (old === undefined) return state;
      const view = keepingWindowState(viewFromAppState(action.appState), old);
      return { ...state, views: { ...state.views, [id]: view }, listRevision: state.listRevision + 1 };
    }
    case "earlier_loaded": {
      const id = action.appState.conversationId ?? "";
      const shown = state.views[id];
      if (shown === undefined || shown.leftOut === 0 || isAnswering(shown) || shown.beforeBranch !== null) return state;
      const whole = viewFromAppState(action.appState);
      if (!endsWith(whole.transcript, shown.transcript, shown.leftOut)) return state;
      const view: ChatState = { ...keepingWindowState(whole, shown), banner: shown.banner };
      return { ...state, views: { ...state.views, [id]: view } };
    }
    case "chat": {
      const view =
        state.views[action.conversationId] ??
        (action.conversationId === (state.shownId ?? "") ? shownView(state) : undefined);
      if (view === undefined) return state;
      const next = chatReducer(view, action.action);
      if (next === view) return state;
      const views = { ...state.views, [action.conversationId]: next };
      const listChanged = action.action.type === "prompt_submitted" || action.action.type === "edit_submitted";
      return { ...state, views, listRevision: listChanged ? state.listRevision + 1 : state.listRevision };
    }
    case "conversation_named":
      return nameUnnamed(state, action.conversationId);
    case "app_info_loaded":
      return { ...state, appInfo: action.appInfo };
    default:
      return assertNever(action);
  }
}

function assertNever(action: never): never {
  throw new Error(`unhandled window action: ${JSON.stringify(action)}`);
}

/**
 * Each envelope to its conversation's state; one of a conversation the window does not follow is dropped (the
 * window loads it whole when it is opened). An envelope without a conversation id is the shown one's.
 */
function applyEnvelopes(state: WindowState, envelopes: readonly Envelope[]): WindowState {
  let next = state;
  let runEnded = false;
  for (const envelope of envelopes) {
    if (envelope.v !== PROTOCOL_VERSION) {
      const protocolError = `The app's backend speaks protocol version ${String(envelope.v)}, this window understands version ${PROTOCOL_VERSION}. Update or reinstall Pi Desktop.`;
      if (next.protocolError !== protocolError) next = { ...next, protocolError };
      continue;
    }
    const id = envelope.conversationId ?? next.shownId ?? "";
    if (next.views[id] === undefined && (next.shownId ?? "") === "") next = nameUnnamed(next, id);
    const view = next.views[id] ?? (id === (next.shownId ?? "") ? shownView(next) : undefined);
    if (view === undefined) {
      next = withSnapshotQueueNotice(next, id, envelope);
      continue;
    }
    const applied = chatReducer(view, { type: "envelopes", envelopes: [envelope] });
    if (applied === view) continue;
    next = { ...next, views: { ...next.views, [id]: applied } };
    if (envelope.kind === "notice" && envelope.notice.type === "idle") runEnded = true;
  }
  return runEnded ? { ...next, listRevision: next.listRevision + 1 } : next;
}

/** A queue notice of a conversation the window does not follow keeps the queue the snapshot named for it current. */
function withSnapshotQueueNotice(state: WindowState, id: string, envelope: Envelope): WindowState {
  const queue = state.snapshotQueues[id];
  if (queue === undefined || envelope.kind !== "notice" || !isQueueNotice(envelope.notice)) return state;
  return { ...state, snapshotQueues: { ...state.snapshotQueues, [id]: applyQueueNotice(queue, envelope.notice) } };
}

/** The unnamed shown conversation (id "") becomes conversation `id`, unless the window follows that one. */
function nameUnnamed(state: WindowState, id: string): WindowState {
  if (id === "" || (state.shownId ?? "") !== "" || state.views[id] !== undefined) return state;
  const { [""]: unnamed, ...others } = state.views;
  const { [id]: snapshotQueue, ...snapshotQueues } = state.snapshotQueues;
  const named = { ...(unnamed ?? initialChatState), conversationId: id };
  return {
    ...state,
    shownId: id,
    views: { ...others, [id]: snapshotQueue === undefined ? named : { ...named, queue: snapshotQueue } },
    snapshotQueues,
  };
}

/** Whether `whole` is the left-out beginning (`leftOut` rows) followed by `end`'s rows, id for id. */
function endsWith(whole: readonly TranscriptItem[], end: readonly TranscriptItem[], leftOut: number): boolean {
  return (
    whole.length === leftOut + end.length &&
    end.every((item, index) => whole[leftOut + index]?.id === item.id && whole[leftOut + index]?.kind === item.kind)
  );
}

/**
 * `loaded`, a view rebuilt from the host's transcript, with what only the window knows of `old`: its queue and
 * the envelopes applied.
 */
function keepingWindowState(loaded: ChatState, old: ChatState): ChatState {
  return { ...loaded, queue: old.queue, lastSeq: old.lastSeq, lastRunId: old.lastRunId };
}

/** A conversation with a run in progress, or one this window asked for. */
export function isAnswering(view: ChatState): boolean {
  return view.runId !== null || view.runStatus !== "idle" || view.submitting;
}

/** The conversation shown (an empty one before the host named any). */
export function shownView(state: WindowState): ChatState {
  const id = state.shownId ?? "";
  return state.views[id] ?? { ...initialChatState, conversationId: id };
}

/** The conversations answering now, for the sidebar's answering dot. */
export function answeringIds(state: WindowState): string[] {
  return Object.values(state.views)
    .filter((view) => view.conversationId !== "" && (view.runId !== null || view.runStatus !== "idle"))
    .map((view) => view.conversationId);
}
