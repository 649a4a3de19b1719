import { describe, expect, it } from "vitest";

import { INTERRUPTED_ERROR_MESSAGE } from "../ipc/conversations";
import type { AppState, Envelope } from "../ipc/wire";
import { assistantMessage, event, numbered, runStart, update } from "./__fixtures__/builders";
import { chatReducer, initialChatState, type ChatAction, type ChatState } from "./chat";
import { canSend, errorAdvice, followsForeignRun, retryableAssistantId, runStatus } from "./selectors";

const MODEL = { provider: "test", id: "test-model", name: "Test" };

function conversation(conversationId: string, messages: AppState["messages"], isStreaming = false): AppState {
  return { conversationId, isStreaming, pendingToolCalls: [], messages, model: MODEL };
}

const STORED: AppState = conversation("b", [
  { role: "user", content: "What is in Downloads?" },
  assistantMessage([{ type: "text", text: "Two PDFs and a" }], "aborted", { errorMessage: INTERRUPTED_ERROR_MESSAGE }),
]);

function reduce(state: ChatState, actions: readonly ChatAction[]): ChatState {
  return actions.reduce(chatReducer, state);
}

/** Conversation "a" shown, its prompt sent in generation `generation`, and the run streaming a first delta. */
function streamingInA(): { state: ChatState; generation: number; rest: Envelope[] } {
  const loaded = chatReducer(initialChatState, {
    type: "conversation_loaded",
    appState: conversation("a", []),
    origin: "startup",
  });
  const generation = loaded.generation;
  const envelopes = numbered([
    ...runStart("Hello"),
    event({ type: "message_start", message: assistantMessage([], "pending") }),
    update({ type: "text_start", contentIndex: 0 }),
    update({ type: "text_delta", contentIndex: 0, delta: "Hi from a" }),
  ]);
  const head = envelopes.slice(0, 6);
  const state = reduce(loaded, [
    { type: "prompt_submitted", text: "Hello", imageCount: 0 },
    ...head.map((envelope): ChatAction => ({ type: "envelopes", envelopes: [envelope], generation })),
  ]);
  return { state, generation, rest: envelopes.slice(6) };
}

describe("switching conversation", () => {
  it("replaces the transcript, the banner and the run state with the opened conversation's", () => {
    const { state } = streamingInA();
    expect(runStatus(state)).toBe("running");
    const failed = chatReducer(state, {
      type: "command_failed",
      command: "abort",
      error: { kind: "internal", message: "boom" },
    });

    const switched = chatReducer(failed, { type: "conversation_loaded", appState: STORED, origin: "switch" });

    expect(switched.conversationId).toBe("b");
    expect(switched.banner).toBeNull();
    expect(switched.runStatus).toBe("idle");
    expect(switched.submitting).toBe(false);
    expect(switched.streamingAssistantId).toBeNull();
    expect(switched.transcript.map((item) => item.kind)).toEqual(["user", "assistant"]);
    expect(switched.generation).toBe(state.generation + 1);
    expect(switched.listRevision).toBeGreaterThan(state.listRevision);
    expect(canSend(switched)).toBe(true);
  });

  it("drops envelopes and the promise result of a run sent before the switch", () => {
    const { state, generation, rest } = streamingInA();
    const switched = chatReducer(state, { type: "conversation_loaded", appState: STORED, origin: "switch" });

    const after = reduce(switched, [
      ...rest.map((envelope): ChatAction => ({ type: "envelopes", envelopes: [envelope], generation })),
      { type: "command_failed", command: "prompt", error: { kind: "provider", message: "late" }, generation },
      { type: "run_command_settled", generation },
    ]);

    expect(after).toEqual(switched);
    const texts = after.transcript.flatMap((item) =>
      item.kind === "assistant" ? item.blocks.map((block) => (block.type === "text" ? block.text : "")) : [item.text],
    );
    expect(texts.join(" ")).not.toContain("Hi from a");
  });

  it("still applies envelopes of a run sent in the conversation shown", () => {
    const { state, generation, rest } = streamingInA();
    const after = reduce(
      state,
      rest.map((envelope): ChatAction => ({ type: "envelopes", envelopes: [envelope], generation })),
    );
    const last = after.transcript[after.transcript.length - 1];
    expect(last?.kind === "assistant" ? last.blocks[0] : undefined).toMatchObject({ type: "text", text: "Hi from a" });
  });

  it("starts a new generation on New as well, so the old run's results are dropped", () => {
    const { state, generation, rest } = streamingInA();
    const fresh = chatReducer(state, { type: "conversation_loaded", appState: conversation("c", []), origin: "new" });
    expect(fresh.transcript).toEqual([]);
    expect(fresh.conversationId).toBe("c");
    const after = reduce(fresh, rest.map((envelope): ChatAction => ({ type: "envelopes", envelopes: [envelope], generation })));
    expect(after).toEqual(fresh);
  });

  it("follows a conversation still answering in the background, as after a reload", () => {
    const { state } = streamingInA();
    const back = chatReducer(state, {
      type: "conversation_loaded",
      appState: conversation("a", [{ role: "user", content: "Hello" }], true),
      origin: "switch",
    });
    expect(followsForeignRun(back)).toBe(true);
    expect(canSend(back)).toBe(false);
  });

  it("ignores a late start-up answer once the user switched, and a poll answer about another conversation", () => {
    const switched = chatReducer(initialChatState, { type: "conversation_loaded", appState: STORED, origin: "switch" });
    const late = chatReducer(switched, {
      type: "conversation_loaded",
      appState: conversation("a", []),
      origin: "startup",
    });
    expect(late).toBe(switched);
    const polled = chatReducer(switched, {
      type: "conversation_loaded",
      appState: conversation("z", []),
      origin: "refresh",
    });
    expect(polled).toBe(switched);
  });
});

describe("an answer interrupted by a crash", () => {
  it("is marked interrupted, not stopped, and Retry may continue it", () => {
    const state = chatReducer(initialChatState, { type: "conversation_loaded", appState: STORED, origin: "switch" });
    const answer = state.transcript[1];
    expect(answer?.kind === "assistant" ? answer.status : undefined).toBe("interrupted");
    expect(answer?.kind === "assistant" ? errorAdvice(answer) : undefined).toBe("interrupted");
    expect(retryableAssistantId(state)).toBe(answer?.id);
  });

  it("leaves an answer the user stopped as stopped", () => {
    const stopped = conversation("d", [
      { role: "user", content: "Hi" },
      assistantMessage([{ type: "text", text: "Hel" }], "aborted", { errorMessage: "Request was aborted" }),
    ]);
    const state = chatReducer(initialChatState, { type: "conversation_loaded", appState: stopped, origin: "switch" });
    const answer = state.transcript[1];
    expect(answer?.kind === "assistant" ? answer.status : undefined).toBe("stopped");
  });
});
