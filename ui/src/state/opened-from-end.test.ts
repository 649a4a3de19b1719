// A long conversation opened from its end (open_conversation with a tail): the last turns are shown first, numbered
// as in the whole transcript, and the whole replaces them only while it is still the same transcript.
import { describe, expect, it } from "vitest";

import type { AgentMessage, AppState } from "../ipc/wire";
import { appState, assistantMessage, userMessage } from "./__fixtures__/builders";
import type { ChatAction } from "./chat";
import { initialWindowState, shownView, windowReducer, type WindowAction, type WindowState } from "./window";

/** `count` turns of a question and its answer. */
function turns(count: number): AgentMessage[] {
  return Array.from({ length: count }, (_, turn) => [
    userMessage(`Question ${turn}`),
    assistantMessage([{ type: "text", text: `Answer ${turn}` }], "stop"),
  ]).flat();
}

const WHOLE: AppState = appState("long", turns(50));

/** What open_conversation answers with a tail of the last `kept` turns. */
function fromEnd(kept: number): AppState {
  const messages = WHOLE.messages.slice(-2 * kept);
  const leftOut = WHOLE.messages.length - messages.length;
  return { ...WHOLE, messages, leftOut: { messages: leftOut, shown: leftOut } };
}

function reduce(state: WindowState, actions: readonly WindowAction[]): WindowState {
  return actions.reduce(windowReducer, state);
}

const opened = (state: AppState): WindowAction => ({ type: "conversation_loaded", appState: state, origin: "switch" });
const earlier = (state: AppState): WindowAction => ({ type: "earlier_loaded", appState: state });
const chat = (action: ChatAction): WindowAction => ({ type: "chat", conversationId: "long", action });

const texts = (state: WindowState) =>
  shownView(state).transcript.map((item) => (item.kind === "user" ? item.text : item.id));

describe("a conversation opened from its end", () => {
  it("shows the last turns with the ids they have in the whole transcript", () => {
    const end = shownView(reduce(initialWindowState, [opened(fromEnd(3))]));
    const whole = shownView(reduce(initialWindowState, [opened(WHOLE)]));
    expect(end.leftOut).toBe(94);
    expect(end.transcript.map((item) => item.id)).toEqual(whole.transcript.slice(-6).map((item) => item.id));
    expect(end.nextId).toBe(whole.nextId);
    expect(whole.leftOut).toBe(0);
  });

  it("gets its beginning from the whole transcript", () => {
    const state = reduce(initialWindowState, [opened(fromEnd(3)), earlier(WHOLE)]);
    const view = shownView(state);
    expect(view.leftOut).toBe(0);
    expect(view.transcript).toHaveLength(100);
    expect(texts(state)[0]).toBe("Question 0");
    expect(texts(state)[98]).toBe("Question 49");
  });

  it("ignores the whole transcript while a prompt is on its way", () => {
    const sent = reduce(initialWindowState, [
      opened(fromEnd(3)),
      chat({ type: "prompt_submitted", text: "One more", imageCount: 0 }),
      earlier(WHOLE),
    ]);
    expect(shownView(sent).leftOut).toBe(94);
    expect(shownView(sent).transcript).toHaveLength(7);
  });

  it("ignores a whole transcript that is no longer the one shown", () => {
    const changed: AppState = { ...WHOLE, messages: [...WHOLE.messages.slice(0, -2), userMessage("Edited")] };
    const state = reduce(initialWindowState, [opened(fromEnd(3)), earlier(changed)]);
    expect(shownView(state).leftOut).toBe(94);
    expect(texts(state).at(-2)).toBe("Question 49");
  });

  it("ignores a whole transcript of another conversation, or of one no longer followed", () => {
    const other: AppState = { ...WHOLE, conversationId: "other" };
    const state = reduce(initialWindowState, [opened(fromEnd(3)), earlier(other)]);
    expect(shownView(state).leftOut).toBe(94);
    const switched = reduce(state, [opened(appState("short", turns(1))), earlier(WHOLE)]);
    expect(switched.views["long"]).toBeUndefined();
  });

  it("leaves a whole transcript alone", () => {
    const state = reduce(initialWindowState, [opened(WHOLE)]);
    expect(windowReducer(state, earlier(WHOLE))).toBe(state);
  });
});
