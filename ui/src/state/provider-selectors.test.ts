import { describe, expect, it } from "vitest";

import { initialChatState, type ChatState } from "./chat";
import { resendableUserId, sendBlockedReason, showsSetupCard, silentSeconds, statusLine } from "./selectors";

describe("Send before any run", () => {
  it("is held back with a reason while no provider is usable; a backend that cannot say never blocks it", () => {
    expect(sendBlockedReason({ status: "checking" })).toBeNull();
    expect(sendBlockedReason({ status: "unusable", message: "Nothing is configured" })).toBe("noModel");
    expect(sendBlockedReason({ status: "usable", provider: "ollama", model: "qwen3:8b" })).toBeNull();
    expect(sendBlockedReason({ status: "unknown" })).toBeNull();
  });

  it("shows the setup card only in an empty conversation without a usable provider", () => {
    const unusable = { status: "unusable", message: "Nothing is configured" } as const;
    expect(showsSetupCard(unusable, initialChatState)).toBe(true);
    expect(showsSetupCard({ status: "usable", provider: "ollama", model: "m" }, initialChatState)).toBe(false);
    const withMessage: ChatState = {
      ...initialChatState,
      transcript: [{ kind: "user", id: "u1", text: "hi", images: [] } as unknown as ChatState["transcript"][number]],
    };
    expect(showsSetupCard(unusable, withMessage)).toBe(false);
  });
});

describe("waiting for the model", () => {
  const running: ChatState = { ...initialChatState, runId: 3, lastRunId: 3 };

  it("counts whole seconds of silence once the stream has been silent for three", () => {
    const facts = statusLine(running);
    expect(facts.waitingOnModel).toBe(true);
    expect(silentSeconds(facts, 10_000, 12_999)).toBeNull();
    expect(silentSeconds(facts, 10_000, 13_000)).toBe(3);
    expect(silentSeconds(facts, 10_000, 17_400)).toBe(7);
  });

  it("says nothing while idle or while a tool runs", () => {
    expect(silentSeconds(statusLine(initialChatState), 0, 60_000)).toBeNull();
    const toolRunning: ChatState = {
      ...running,
      tools: { t1: { toolCallId: "t1", status: "running" } as unknown as ChatState["tools"][string] },
    };
    expect(statusLine(toolRunning).waitingOnModel).toBe(false);
    expect(silentSeconds(statusLine(toolRunning), 0, 60_000)).toBeNull();
  });
});

describe("a message that failed to start", () => {
  it("may be sent again while it is the last item and no run is in progress", () => {
    const failed = { kind: "user", id: "u1", text: "hi", imageCount: 0, delivery: "failed" } as const;
    const state: ChatState = { ...initialChatState, transcript: [failed] };
    expect(resendableUserId(state)).toBe("u1");
    expect(resendableUserId({ ...state, submitting: true })).toBeNull();
    expect(resendableUserId({ ...state, transcript: [{ ...failed, delivery: "sent" }] })).toBeNull();
  });
});
