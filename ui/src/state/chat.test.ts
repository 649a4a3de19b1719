import { describe, expect, it } from "vitest";

import { chatReducer, initialChatState, type ChatAction, type ChatState } from "./chat";
import { appTitle, canSend, canStop } from "./selectors";

function replay(actions: readonly ChatAction[], from: ChatState = initialChatState): ChatState {
  return actions.reduce(chatReducer, from);
}

describe("chat reducer", () => {
  it("starts idle and empty, with Send enabled and Stop disabled", () => {
    expect(initialChatState.status).toBe("idle");
    expect(initialChatState.messages).toEqual([]);
    expect(canSend(initialChatState)).toBe(true);
    expect(canStop(initialChatState)).toBe(false);
  });

  it("appends submitted messages in order with fresh ids and trimmed text", () => {
    const state = replay([
      { type: "user_message_submitted", text: "  list my desktop  " },
      { type: "user_message_submitted", text: "and my documents" },
    ]);
    expect(state.messages).toEqual([
      { id: 1, role: "user", text: "list my desktop" },
      { id: 2, role: "user", text: "and my documents" },
    ]);
  });

  it("ignores a blank submission", () => {
    const state = replay([{ type: "user_message_submitted", text: " \n\t " }]);
    expect(state).toBe(initialChatState);
  });

  it("ignores a submission while a run is streaming", () => {
    const streaming: ChatState = { ...initialChatState, status: "streaming" };
    expect(replay([{ type: "user_message_submitted", text: "hello" }], streaming)).toBe(streaming);
    expect(canSend(streaming)).toBe(false);
    expect(canStop(streaming)).toBe(true);
  });

  it("keeps the app info the backend reports and names the app after it", () => {
    expect(appTitle(initialChatState)).toBe("Pi Desktop");
    const state = replay([{ type: "app_info_loaded", appInfo: { name: "Pi Desktop", version: "1.2.3" } }]);
    expect(state.appInfo).toEqual({ name: "Pi Desktop", version: "1.2.3" });
    expect(appTitle(state)).toBe("Pi Desktop 1.2.3");
  });

  it("does not mutate the state it is given", () => {
    const before = structuredClone(initialChatState);
    replay([{ type: "user_message_submitted", text: "hello" }]);
    expect(initialChatState).toEqual(before);
  });
});
