// Builders for hand-written envelope sequences in tests: numbered envelopes and pi-shaped messages.
import type {
  AgentEvent,
  AgentMessage,
  AppState,
  AssistantBlock,
  AssistantMessage,
  AssistantMessageEvent,
  Envelope,
  HostNotice,
  StopReason,
  UserMessage,
} from "../../ipc/wire";

export type Payload = { event: AgentEvent } | { notice: HostNotice };

/** Numbers payloads into envelopes of protocol version 1, from `firstSeq`. */
export function numbered(payloads: readonly Payload[], firstSeq = 1): Envelope[] {
  return payloads.map((payload, index) =>
    "event" in payload
      ? { v: 1, seq: firstSeq + index, kind: "event", event: payload.event }
      : { v: 1, seq: firstSeq + index, kind: "notice", notice: payload.notice },
  );
}

export const event = (value: AgentEvent): Payload => ({ event: value });
export const notice = (value: HostNotice): Payload => ({ notice: value });
export const update = (assistantMessageEvent: AssistantMessageEvent): Payload =>
  event({ type: "message_update", assistantMessageEvent });

export function assistantMessage(
  content: AssistantBlock[],
  stopReason: StopReason,
  extra: { errorMessage?: string; totalTokens?: number } = {},
): AssistantMessage {
  const totalTokens = extra.totalTokens ?? 0;
  const message: AssistantMessage = {
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "test",
    model: "test-model",
    usage: {
      input: totalTokens,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason,
  };
  return extra.errorMessage === undefined ? message : { ...message, errorMessage: extra.errorMessage };
}

/** The start of a prompt run: agent_start, the streaming state, a turn and the user's prompt. */
export function runStart(prompt: string): Payload[] {
  const user = { role: "user" as const, content: [{ type: "text" as const, text: prompt }] };
  return [
    event({ type: "agent_start" }),
    notice({ type: "state", isStreaming: true, pendingToolCalls: [] }),
    event({ type: "turn_start" }),
    event({ type: "message_start", message: user }),
    event({ type: "message_end", message: user }),
  ];
}

/** The end of a run: agent_end, the state going idle, and the idle notice. */
export function runEnd(errorMessage?: string): Payload[] {
  return [
    event({ type: "agent_end", messages: [] }),
    notice(
      errorMessage === undefined
        ? { type: "state", isStreaming: false, pendingToolCalls: [] }
        : { type: "state", isStreaming: false, pendingToolCalls: [], errorMessage },
    ),
    notice({ type: "idle" }),
  ];
}

/**
 * The envelopes as the window's stream sends them: each carries its conversation and, from the run's first
 * envelope to its idle, its run id. Recorded traces and `numbered` leave both out.
 */
export function tagged(envelopes: readonly Envelope[], conversationId: string, runId?: number): Envelope[] {
  return envelopes.map((envelope) =>
    runId === undefined ? { ...envelope, conversationId } : { ...envelope, conversationId, runId },
  );
}

/** What get_state / open_conversation / new_conversation answer for a conversation. */
export function appState(conversationId: string, messages: AgentMessage[] = [], isStreaming = false): AppState {
  return {
    conversationId,
    isStreaming,
    pendingToolCalls: [],
    messages,
    model: { provider: "test", id: "test-model", api: "openai-completions", contextWindow: 128000, imageInput: false, priced: false },
    thinkingLevel: "off",
  };
}

/** The user message pi records for a text prompt. */
export function userMessage(text: string): UserMessage {
  return { role: "user", content: [{ type: "text", text }] };
}
