// Switching conversation against the window's state: the window follows every conversation that answers, so a
// switch keeps a running conversation up to date in the background and shows it as it stands when it comes back.
import { describe, expect, it } from "vitest";

import { INTERRUPTED_ERROR_MESSAGE } from "../ipc/conversations";
import type { AppState, Envelope } from "../ipc/wire";
import thinkingThenText from "./__fixtures__/thinking_then_text.envelopes.json";
import {
  appState,
  assistantMessage,
  event,
  numbered,
  runEnd,
  runStart,
  tagged,
  update,
  userMessage,
} from "./__fixtures__/builders";
import { answerText } from "./assistant-blocks";
import type { ChatAction, ChatState } from "./chat";
import { canSend, errorAdvice, retryableAssistantId, runStatus } from "./selectors";
import {
  answeringIds,
  initialWindowState,
  shownView,
  windowReducer,
  type WindowAction,
  type WindowState,
} from "./window";

const STORED: AppState = appState("b", [
  { role: "user", content: "What is in Downloads?" },
  assistantMessage([{ type: "text", text: "Two PDFs and a" }], "aborted", { errorMessage: INTERRUPTED_ERROR_MESSAGE }),
]);

function reduce(state: WindowState, actions: readonly WindowAction[]): WindowState {
  return actions.reduce(windowReducer, state);
}

const envelopes = (batch: readonly Envelope[]): WindowAction => ({ type: "envelopes", envelopes: batch });
const chat = (conversationId: string, action: ChatAction): WindowAction => ({ type: "chat", conversationId, action });
const load = (loaded: AppState, origin: "startup" | "switch" | "new" = "switch"): WindowAction => ({
  type: "conversation_loaded",
  appState: loaded,
  origin,
});

function view(state: WindowState, id: string): ChatState {
  const found = state.views[id];
  if (found === undefined) throw new Error(`the window does not follow ${id}`);
  return found;
}

/** The visible text of a conversation: user texts and answer texts, in order. */
function texts(state: ChatState): string[] {
  return state.transcript.map((item) => (item.kind === "user" ? item.text : answerText(item.blocks)));
}

/** A prompt run of `id` as run `runId` whose answer streams `parts` and then ends with their concatenation. */
function answerRun(id: string, runId: number, prompt: string, parts: readonly string[]): Envelope[] {
  const answer = parts.join("");
  return tagged(
    numbered([
      ...runStart(prompt),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
      ...parts.map((delta) => update({ type: "text_delta", contentIndex: 0, delta })),
      event({ type: "message_end", message: assistantMessage([{ type: "text", text: answer }], "stop") }),
      ...runEnd(),
    ]),
    id,
    runId,
  );
}

const RUN_A = answerRun("a", 1, "Hello", ["Hi ", "from ", "a"]);
/** The index of RUN_A's envelope after which "Hi " has streamed. */
const FIRST_DELTA = 7;

/** Conversation "a" shown, its prompt accepted as run 1, and the answer streaming its first delta. */
function streamingInA(): WindowState {
  return reduce(initialWindowState, [
    { type: "subscribed", snapshot: { runs: [] } },
    load(appState("a"), "startup"),
    chat("a", { type: "prompt_submitted", text: "Hello", imageCount: 0 }),
    chat("a", { type: "run_accepted", runId: 1 }),
    envelopes(RUN_A.slice(0, FIRST_DELTA + 1)),
  ]);
}

describe("switching while a run streams", () => {
  it("shows the opened conversation with its own transcript, banner and run state", () => {
    const running = reduce(streamingInA(), [
      chat("a", { type: "command_failed", command: "abort", error: { kind: "internal", code: "work_stopped", detail: "boom" } }),
    ]);
    expect(runStatus(shownView(running))).toBe("running");
    expect(texts(shownView(running))).toEqual(["Hello", "Hi "]);

    const switched = windowReducer(running, load(STORED));

    expect(switched.shownId).toBe("b");
    const shown = shownView(switched);
    expect(shown.conversationId).toBe("b");
    expect(shown.banner).toBeNull();
    expect(runStatus(shown)).toBe("idle");
    expect(shown.submitting).toBe(false);
    expect(shown.streamingAssistantId).toBeNull();
    expect(texts(shown)).toEqual(["What is in Downloads?", "Two PDFs and a"]);
    expect(canSend(shown)).toBe(true);
    expect(switched.listRevision).toBeGreaterThan(running.listRevision);
    // a goes on in the background, its banner kept for when it is shown again.
    expect(view(switched, "a").banner?.detail).toBe("boom");
    expect(answeringIds(switched)).toEqual(["a"]);
  });

  it("keeps the background conversation up to date from its envelopes, and leaves the shown one alone", () => {
    const switched = windowReducer(streamingInA(), load(STORED));
    const shownBefore = shownView(switched);

    const streamed = windowReducer(switched, envelopes(RUN_A.slice(FIRST_DELTA + 1, FIRST_DELTA + 3)));
    expect(texts(view(streamed, "a"))).toEqual(["Hello", "Hi from a"]);
    expect(runStatus(view(streamed, "a"))).toBe("running");
    expect(shownView(streamed)).toBe(shownBefore);

    const settled = windowReducer(streamed, envelopes(RUN_A.slice(FIRST_DELTA + 3)));
    expect(runStatus(view(settled, "a"))).toBe("idle");
    expect(canSend(view(settled, "a"))).toBe(true);
    expect(answeringIds(settled)).toEqual([]);
    expect(shownView(settled)).toBe(shownBefore);
  });

  it("switching back shows the conversation as it stands, not the host's older transcript", () => {
    const away = reduce(streamingInA(), [load(STORED), envelopes(RUN_A.slice(FIRST_DELTA + 1, FIRST_DELTA + 3))]);
    const liveA = view(away, "a");
    // open_conversation answered while the run streams: the prompt only, no answer yet.
    const back = windowReducer(away, load(appState("a", [userMessage("Hello")], true)));
    expect(back.shownId).toBe("a");
    expect(shownView(back)).toBe(liveA);
    expect(texts(shownView(back))).toEqual(["Hello", "Hi from a"]);
    expect(shownView(back).streamingAssistantId).not.toBeNull();
    expect(canSend(shownView(back))).toBe(false);

    const settled = windowReducer(back, envelopes(RUN_A.slice(FIRST_DELTA + 3)));
    expect(texts(shownView(settled))).toEqual(["Hello", "Hi from a"]);
    expect(canSend(shownView(settled))).toBe(true);
  });

  it("a run that ended in the background is shown as it ended", () => {
    const away = reduce(streamingInA(), [load(STORED), envelopes(RUN_A.slice(FIRST_DELTA + 1))]);
    const back = windowReducer(away, load(appState("a", [userMessage("Hello")])));
    expect(texts(shownView(back))).toEqual(["Hello", "Hi from a"]);
    expect(canSend(shownView(back))).toBe(true);
  });

  it("New while a run streams: an empty conversation is shown and the run goes on", () => {
    const fresh = windowReducer(streamingInA(), load(appState("c"), "new"));
    expect(fresh.shownId).toBe("c");
    expect(shownView(fresh).transcript).toEqual([]);
    expect(canSend(shownView(fresh))).toBe(true);
    const after = windowReducer(fresh, envelopes(RUN_A.slice(FIRST_DELTA + 1)));
    expect(shownView(after)).toBe(shownView(fresh));
    expect(texts(view(after, "a"))).toEqual(["Hello", "Hi from a"]);
  });
});

describe("routing envelopes by conversation", () => {
  it("each conversation gets only its own envelopes, even interleaved in one batch", () => {
    const runB = answerRun("b", 2, "Count", ["one ", "two"]);
    const state = reduce(streamingInA(), [
      load(STORED),
      chat("b", { type: "prompt_submitted", text: "Count", imageCount: 0 }),
      chat("b", { type: "run_accepted", runId: 2 }),
    ]);
    const rest = RUN_A.slice(FIRST_DELTA + 1);
    const interleaved: Envelope[] = [];
    for (let index = 0; index < Math.max(rest.length, runB.length); index += 1) {
      const fromB = runB[index];
      const fromA = rest[index];
      if (fromB !== undefined) interleaved.push(fromB);
      if (fromA !== undefined) interleaved.push(fromA);
    }
    const after = windowReducer(state, envelopes(interleaved));

    expect(texts(view(after, "a"))).toEqual(["Hello", "Hi from a"]);
    expect(texts(view(after, "b"))).toEqual(["What is in Downloads?", "Two PDFs and a", "Count", "one two"]);
    expect(view(after, "a").lastSeq).toBe(RUN_A.length);
    expect(view(after, "b").lastSeq).toBe(runB.length);
    expect(view(after, "a").lastRunId).toBe(1);
    expect(view(after, "b").lastRunId).toBe(2);
    expect(canSend(view(after, "a"))).toBe(true);
    expect(canSend(view(after, "b"))).toBe(true);
  });

  it("drops envelopes of a conversation the window does not follow", () => {
    const state = windowReducer(streamingInA(), load(STORED));
    const after = windowReducer(state, envelopes(answerRun("z", 5, "elsewhere", ["nope"])));
    expect(after.views).toEqual(state.views);
    expect(Object.keys(after.views).sort()).toEqual(["a", "b"]);
    expect(answeringIds(after)).toEqual(["a"]);
    expect(after.listRevision).toBe(state.listRevision);
  });

  it("an envelope without a conversation id goes to the shown conversation", () => {
    const state = windowReducer(streamingInA(), load(STORED));
    const untagged = thinkingThenText as unknown as Envelope[];
    expect(untagged.some((envelope) => envelope.conversationId !== undefined)).toBe(false);
    const after = windowReducer(state, envelopes(untagged));
    expect(texts(view(after, "b"))).toEqual(["What is in Downloads?", "Two PDFs and a", "Pick a number.", "42"]);
    expect(view(after, "a")).toBe(view(state, "a"));
    expect(canSend(shownView(after))).toBe(true);
  });
});

describe("what a switch keeps", () => {
  it("drops the idle conversations not shown and keeps those that answer", () => {
    const state = reduce(streamingInA(), [
      load(STORED),
      load(appState("c")),
    ]);
    expect(Object.keys(state.views).sort()).toEqual(["a", "c"]);

    // a ends in the background: it stays followed until the next switch.
    const ended = windowReducer(state, envelopes(RUN_A.slice(FIRST_DELTA + 1)));
    expect(Object.keys(ended.views).sort()).toEqual(["a", "c"]);
    const next = windowReducer(ended, load(appState("d")));
    expect(Object.keys(next.views)).toEqual(["d"]);
  });

  it("keeps a conversation whose prompt is on its way", () => {
    const state = reduce(initialWindowState, [
      load(appState("a"), "startup"),
      chat("a", { type: "prompt_submitted", text: "Hello", imageCount: 0 }),
      load(STORED),
    ]);
    expect(Object.keys(state.views).sort()).toEqual(["a", "b"]);
    // Its run's envelopes then find it.
    const after = windowReducer(state, envelopes(RUN_A));
    expect(texts(view(after, "a"))).toEqual(["Hello", "Hi from a"]);
  });

  it("a dropped conversation is loaded again from the host's transcript when it is opened", () => {
    const state = reduce(initialWindowState, [load(appState("a", [userMessage("old")]), "startup"), load(STORED)]);
    expect(state.views["a"]).toBeUndefined();
    const back = windowReducer(state, load(appState("a", [userMessage("old"), userMessage("newer")])));
    expect(texts(shownView(back))).toEqual(["old", "newer"]);
  });

  it("ignores a command result of a conversation no longer followed", () => {
    const state = reduce(initialWindowState, [load(appState("a"), "startup"), load(STORED)]);
    const late = windowReducer(
      state,
      chat("a", { type: "command_failed", command: "prompt", error: { kind: "provider", code: "model_setup", detail: "late" } }),
    );
    expect(late).toBe(state);
  });

  it("ignores a late start-up answer once the user switched", () => {
    const switched = windowReducer(initialWindowState, load(STORED));
    const late = windowReducer(switched, load(appState("a"), "startup"));
    expect(late).toBe(switched);
  });
});

describe("an answer interrupted by a crash", () => {
  it("is marked interrupted, not stopped, and Retry may continue it", () => {
    const state = shownView(windowReducer(initialWindowState, load(STORED)));
    const answer = state.transcript[1];
    expect(answer?.kind === "assistant" ? answer.status : undefined).toBe("interrupted");
    expect(answer?.kind === "assistant" ? errorAdvice(answer) : undefined).toBe("interrupted");
    expect(retryableAssistantId(state)).toBe(answer?.id);
  });

  it("leaves an answer the user stopped as stopped", () => {
    const stopped = appState("d", [
      { role: "user", content: "Hi" },
      assistantMessage([{ type: "text", text: "Hel" }], "aborted", { errorMessage: "Request was aborted" }),
    ]);
    const state = shownView(windowReducer(initialWindowState, load(stopped)));
    const answer = state.transcript[1];
    expect(answer?.kind === "assistant" ? answer.status : undefined).toBe("stopped");
  });
});
