import { describe, expect, it } from "vitest";

import type { Envelope } from "../../ipc/wire";
import { initialQuickAsk, quickAskReducer, type QuickAskAction, type QuickAskState } from "./quick-ask-state";

function delta(conversationId: string, text: string): Envelope {
  return {
    v: 1,
    conversationId,
    runId: 1,
    seq: 1,
    kind: "event",
    event: { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: text } },
  };
}

function idle(conversationId: string): Envelope {
  return { v: 1, conversationId, runId: 1, seq: 9, kind: "notice", notice: { type: "idle" } };
}

function failedEnd(conversationId: string, errorMessage: string): Envelope {
  return {
    v: 1,
    conversationId,
    runId: 1,
    seq: 8,
    kind: "event",
    event: {
      type: "message_end",
      message: { role: "assistant", content: [], api: "openai-completions", provider: "p", model: "m", stopReason: "error", errorMessage },
    },
  };
}

function run(...actions: QuickAskAction[]): QuickAskState {
  return actions.reduce(quickAskReducer, initialQuickAsk);
}

describe("the quick-ask window's question", () => {
  it("streams only its own conversation's text, including what came before the host named it, and ends at idle", () => {
    const state = run(
      { type: "asked", question: "Weather?" },
      { type: "envelopes", envelopes: [delta("q", "Sunny"), delta("other", "Not mine")] },
      { type: "accepted", accepted: { conversationId: "q", runId: 1 } },
      { type: "envelopes", envelopes: [delta("q", " and warm."), delta("other", " nor this")] },
    );
    expect(state).toMatchObject({ phase: "answering", conversationId: "q", answer: "Sunny and warm.", early: [] });
    expect(quickAskReducer(state, { type: "envelopes", envelopes: [idle("other")] }).phase).toBe("answering");
    expect(quickAskReducer(state, { type: "envelopes", envelopes: [idle("q")] }).phase).toBe("done");
  });

  it("says why the answer failed, and a refused question says what the host said", () => {
    const failed = run(
      { type: "asked", question: "Weather?" },
      { type: "accepted", accepted: { conversationId: "q", runId: 1 } },
      { type: "envelopes", envelopes: [failedEnd("q", "401 Unauthorized"), idle("q")] },
    );
    expect(failed).toMatchObject({ phase: "failed", error: "401 Unauthorized" });
    const refused = run(
      { type: "asked", question: "Weather?" },
      { type: "refused", error: { kind: "settings", code: "settings_unusable", detail: "No provider is configured" } },
    );
    expect(refused).toMatchObject({ phase: "failed", error: "No provider is configured" });
  });

  it("ignores the stream before a question and starts afresh with the next one", () => {
    expect(run({ type: "envelopes", envelopes: [delta("q", "x")] })).toEqual(initialQuickAsk);
    const next = run(
      { type: "asked", question: "One" },
      { type: "accepted", accepted: { conversationId: "q", runId: 1 } },
      { type: "envelopes", envelopes: [delta("q", "First"), idle("q")] },
      { type: "asked", question: "Two" },
    );
    expect(next).toMatchObject({ phase: "asking", question: "Two", answer: "", conversationId: null });
  });
});
