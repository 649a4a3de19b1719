// The quick-ask window's one question and its answer, built from the window's envelope stream: only the
// envelopes of the conversation the question started count; those that arrive before the host said which
// conversation that is wait until it does.
import type { CommandError, Envelope, RunAccepted } from "../../ipc/wire";

export type QuickAskPhase = "composing" | "asking" | "answering" | "done" | "failed";

export interface QuickAskState {
  phase: QuickAskPhase;
  question: string;
  /** The conversation the question started, once the host accepted it. */
  conversationId: string | null;
  answer: string;
  /** The run's error (its message), or the command's. */
  error: string | null;
  /** Envelopes that came while the conversation was not known yet. */
  early: Envelope[];
}

export type QuickAskAction =
  | { type: "asked"; question: string }
  | { type: "accepted"; accepted: RunAccepted }
  | { type: "refused"; error: CommandError }
  | { type: "envelopes"; envelopes: Envelope[] }
  | { type: "reset" };

export const initialQuickAsk: QuickAskState = {
  phase: "composing",
  question: "",
  conversationId: null,
  answer: "",
  error: null,
  early: [],
};

export function quickAskReducer(state: QuickAskState, action: QuickAskAction): QuickAskState {
  switch (action.type) {
    case "asked":
      return { ...initialQuickAsk, phase: "asking", question: action.question };
    case "accepted": {
      const accepted = { ...state, conversationId: action.accepted.conversationId, early: [] };
      return apply(accepted, state.early);
    }
    case "refused":
      return { ...state, phase: "failed", error: action.error.detail ?? action.error.code };
    case "envelopes":
      if (state.phase === "composing") return state;
      if (state.conversationId === null) return { ...state, early: [...state.early, ...action.envelopes] };
      return apply(state, action.envelopes);
    case "reset":
      return initialQuickAsk;
  }
}

function apply(state: QuickAskState, envelopes: readonly Envelope[]): QuickAskState {
  let next = state;
  for (const envelope of envelopes) {
    if (envelope.conversationId !== next.conversationId) continue;
    next = step(next, envelope);
  }
  return next;
}

function step(state: QuickAskState, envelope: Envelope): QuickAskState {
  if (envelope.kind === "notice") {
    return envelope.notice.type === "idle" && state.phase !== "failed" ? { ...state, phase: "done" } : state;
  }
  const event = envelope.event;
  if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
    return { ...state, phase: "answering", answer: state.answer + event.assistantMessageEvent.delta };
  }
  if (event.type === "message_end" && event.message.role === "assistant") {
    if (event.message.stopReason === "error" || event.message.stopReason === "aborted") {
      return { ...state, phase: "failed", error: event.message.errorMessage ?? event.message.stopReason };
    }
    // Each turn's text ends with its message; a next turn's text starts on a new paragraph.
    return state.answer === "" || state.answer.endsWith("\n\n") ? state : { ...state, answer: `${state.answer}\n\n` };
  }
  return state;
}
