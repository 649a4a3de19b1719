// Replay of a stored run, with no model call: the conversation as it stood before the run, then the run's
// envelopes applied one by one through the same reducer the live window uses, so the transcript shows what the
// user saw (tool cards, approvals and all) and ends where the stored conversation ends. Pure functions; the
// controls decide when to step.
import type { LogLine, RunReplay } from "../../ipc/inspector";
import { applyEnvelope, type ChatState } from "../../state/chat";
import { viewFromMessages } from "../../state/conversation-load";

export const REPLAY_SPEEDS = [1, 2, 5, 10, 25, 100] as const;
export type ReplaySpeed = (typeof REPLAY_SPEEDS)[number];

/** The longest wait between two events, whatever the log says (a run that waited for an approval, say). */
export const MAX_REPLAY_GAP_MS = 1500;

export interface ReplayState {
  conversationId: string;
  logId: number;
  lines: readonly LogLine[];
  /** How many lines have been applied. */
  position: number;
  view: ChatState;
  playing: boolean;
  speed: ReplaySpeed;
}

export function startReplay(conversationId: string, logId: number, replay: RunReplay): ReplayState {
  return {
    conversationId,
    logId,
    lines: replay.lines,
    position: 0,
    view: viewFromMessages(conversationId, replay.before),
    playing: false,
    speed: 10,
  };
}

export function isFinished(state: ReplayState): boolean {
  return state.position >= state.lines.length;
}

/** Applies the next line; a finished replay stays as it is (and stops playing). */
export function stepReplay(state: ReplayState): ReplayState {
  const line = state.lines[state.position];
  if (line === undefined) return { ...state, playing: false };
  const position = state.position + 1;
  return {
    ...state,
    position,
    view: applyEnvelope(state.view, line.envelope),
    playing: state.playing && position < state.lines.length,
  };
}

/** Applies every line: where the replay ends. */
export function finishReplay(state: ReplayState): ReplayState {
  let next = state;
  while (!isFinished(next)) next = stepReplay(next);
  return { ...next, playing: false };
}

/** How long to wait before the next line at the replay's speed (the log's gap, capped); null when finished. */
export function delayBeforeNext(state: ReplayState): number | null {
  const next = state.lines[state.position];
  if (next === undefined) return null;
  const previous = state.lines[state.position - 1];
  const gap = previous === undefined ? 0 : Math.max(0, next.at - previous.at);
  return Math.min(gap, MAX_REPLAY_GAP_MS) / state.speed;
}
