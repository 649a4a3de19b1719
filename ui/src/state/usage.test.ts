import { describe, expect, it } from "vitest";

import type { Usage } from "../ipc/wire";
import { assistantMessage, userMessage } from "./__fixtures__/builders";
import { finalAssistant, type TranscriptItem } from "./chat";
import { viewFromAppState } from "./conversation-load";
import { statusLine } from "./selectors";
import { answerUsage, CONTEXT_WARN_RATIO, contextFill, conversationUsage } from "./usage";

function usage(input: number, output: number, cacheRead: number, cost: number): Usage {
  return {
    input,
    output,
    cacheRead,
    cacheWrite: 0,
    totalTokens: input + output + cacheRead,
    cost: { input: cost / 2, output: cost / 2, cacheRead: 0, cacheWrite: 0, total: cost },
  };
}

function answer(id: string, reported: Usage): TranscriptItem {
  const message = { ...assistantMessage([{ type: "text", text: "ok" }], "stop"), usage: reported };
  return finalAssistant(id, message, false);
}

describe("usage", () => {
  it("adds each call once: tokens billed per call, and the conversation's size from the last call", () => {
    // Three turns: each call's input is the whole context so far.
    const transcript = [
      answer("a1", usage(1000, 100, 0, 0.002)),
      answer("a2", usage(1150, 80, 0, 0.0025)),
      answer("a3", usage(300, 50, 1000, 0.001)),
    ];
    const totals = conversationUsage(transcript);
    expect(totals).toMatchObject({ calls: 3, input: 2450, output: 230, cacheRead: 1000, cacheWrite: 0, costPartial: false });
    expect(totals?.cost).toBeCloseTo(0.0055, 10);
    // Not 1100 + 1230 + 1350: the early messages are counted once, in the last call's context.
    expect(totals?.conversationTokens).toBe(1350);
    expect(totals?.lastContextTokens).toBe(1300);
  });

  it("counts a stored conversation the same as the streamed one", () => {
    const state = viewFromAppState({
      conversationId: "c1",
      isStreaming: false,
      pendingToolCalls: [],
      model: { provider: "test", id: "m", api: "openai-completions", contextWindow: 2000, imageInput: false, priced: true },
      thinkingLevel: "off",
      messages: [
        userMessage("one"),
        { ...assistantMessage([{ type: "text", text: "1" }], "stop"), usage: usage(100, 10, 0, 0.01) },
        userMessage("two"),
        { ...assistantMessage([{ type: "text", text: "2" }], "stop"), usage: usage(120, 10, 0, 0.01) },
      ],
    });
    expect(statusLine(state).tokensUsed).toBe(130);
    expect(statusLine(state).usage).toMatchObject({ calls: 2, input: 220, output: 20 });
  });

  it("says the cost is unknown when the model has no price, and partial when only some answers had one", () => {
    expect(answerUsage(usage(500, 20, 0, 0))).toEqual({ input: 500, output: 20, cacheRead: 0, cacheWrite: 0, total: 520, cost: null });
    expect(conversationUsage([answer("a1", usage(500, 20, 0, 0))])).toMatchObject({ cost: null, costPartial: false });
    const mixed = conversationUsage([answer("a1", usage(500, 20, 0, 0.01)), answer("a2", usage(600, 20, 0, 0))]);
    expect(mixed).toMatchObject({ cost: 0.01, costPartial: true });
  });

  it("leaves out answers that reported no usage at all", () => {
    expect(answerUsage(usage(0, 0, 0, 0))).toBeNull();
    expect(answerUsage(undefined)).toBeNull();
    expect(conversationUsage([answer("a1", usage(0, 0, 0, 0))])).toBeNull();
    expect(conversationUsage([])).toBeNull();
  });

  it("fills the context meter from the last call and warns from 80% on", () => {
    expect(CONTEXT_WARN_RATIO).toBe(0.8);
    const at = (input: number, cacheRead: number) => contextFill(conversationUsage([answer("a", usage(input, 5, cacheRead, 0))]), 10_000);
    expect(at(2000, 1000)).toEqual({ tokens: 3000, window: 10_000, ratio: 0.3, level: "ok" });
    expect(at(7999, 0)?.level).toBe("ok");
    expect(at(6000, 2000)?.level).toBe("warn");
    expect(at(10_000, 500)?.level).toBe("full");
    expect(contextFill(null, 10_000)).toBeNull();
    expect(contextFill(conversationUsage([answer("a", usage(10, 5, 0, 0))]), null)).toBeNull();
  });
});
