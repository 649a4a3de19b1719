import { describe, expect, it } from "vitest";

import type { Envelope, LiveSnapshot, RunSnapshot } from "../ipc/wire";
import {
  appState,
  assistantMessage,
  event,
  notice,
  numbered,
  runEnd,
  runStart,
  tagged,
  update,
  userMessage,
} from "./__fixtures__/builders";
import type { AssistantItem, ChatAction, ChatState } from "./chat";
import { appTitle, canSend, runStatus, runningToolCallIds, statusLine, toolCardState } from "./selectors";
import {
  answeringIds,
  initialWindowState,
  isAnswering,
  shownView,
  windowReducer,
  type WindowAction,
  type WindowState,
} from "./window";

function reduce(state: WindowState, actions: readonly WindowAction[]): WindowState {
  return actions.reduce(windowReducer, state);
}

const envelopes = (batch: readonly Envelope[]): WindowAction => ({ type: "envelopes", envelopes: batch });
const chat = (conversationId: string, action: ChatAction): WindowAction => ({ type: "chat", conversationId, action });
const prompt = (conversationId: string, text: string): WindowAction =>
  chat(conversationId, { type: "prompt_submitted", text, imageCount: 0 });

/** A window that started up showing conversation `id` (nothing running). */
function showing(id: string, from: WindowState = initialWindowState): WindowState {
  return windowReducer(from, { type: "conversation_loaded", appState: appState(id), origin: "startup" });
}

function view(state: WindowState, id: string): ChatState {
  const found = state.views[id];
  if (found === undefined) throw new Error(`the window does not follow ${id}`);
  return found;
}

function assistants(state: ChatState): AssistantItem[] {
  return state.transcript.filter((item): item is AssistantItem => item.kind === "assistant");
}

/** The shown conversation after action `index` of a trail. */
function shownAt(states: readonly WindowState[], index: number): ChatState {
  const state = states[index];
  if (state === undefined) throw new Error(`no state ${index}`);
  return shownView(state);
}

/** Every state of a reduction, after each action. */
function trail(state: WindowState, actions: readonly WindowAction[]): WindowState[] {
  const result: WindowState[] = [];
  let current = state;
  for (const action of actions) {
    current = windowReducer(current, action);
    result.push(current);
  }
  return result;
}

/** A whole prompt run of conversation `id` as run `runId`: one streamed answer "Hello". */
function helloRun(id: string, runId: number, prompt = "Say hello"): Envelope[] {
  return tagged(
    numbered([
      ...runStart(prompt),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
      update({ type: "text_delta", contentIndex: 0, delta: "Hel" }),
      update({ type: "text_delta", contentIndex: 0, delta: "lo" }),
      event({ type: "message_end", message: assistantMessage([{ type: "text", text: "Hello" }], "stop", { totalTokens: 9 }) }),
      ...runEnd(),
    ]),
    id,
    runId,
  );
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

describe("the subscription snapshot", () => {
  const listCall = { type: "toolCall" as const, id: "call_1", name: "list_folder", arguments: { folder: "documents" } };
  const progress = { content: [{ type: "text" as const, text: "3 files so far" }], details: { scanned: 3 } };

  // "a" runs a tool; "b" streams its answer (envelopes 1–8 of helloRun("b", 7) are in the snapshot); "c" settles.
  const runA: RunSnapshot = {
    conversationId: "a",
    runId: 3,
    lastSeq: 20,
    phase: "running",
    turnCount: 2,
    messages: [userMessage("List documents"), assistantMessage([listCall], "toolUse", { totalTokens: 4 })],
    streaming: null,
    tools: [{ toolCallId: "call_1", toolName: "list_folder", args: { folder: "documents" }, partialResult: progress }],
  };
  const runB: RunSnapshot = {
    conversationId: "b",
    runId: 7,
    lastSeq: 8,
    phase: "running",
    turnCount: 1,
    messages: [userMessage("Say hello")],
    streaming: assistantMessage([{ type: "text", text: "Hel" }], "pending"),
    tools: [],
  };
  const runC: RunSnapshot = {
    conversationId: "c",
    runId: 1,
    lastSeq: 5,
    phase: "settling",
    turnCount: 1,
    messages: [userMessage("Hi"), assistantMessage([{ type: "text", text: "Hi there" }], "stop")],
    streaming: null,
    tools: [],
  };
  const snapshot: LiveSnapshot = { runs: [runA, runB, runC] };
  const subscribed = windowReducer(initialWindowState, { type: "subscribed", snapshot });

  it("makes a view of each running conversation as of its last envelope", () => {
    expect(Object.keys(subscribed.views).sort()).toEqual(["a", "b", "c"]);

    const b = view(subscribed, "b");
    expect(b.conversationId).toBe("b");
    expect(b.transcript).toEqual([
      { kind: "user", id: "u1", text: "Say hello", imageCount: 0, delivery: "sent" },
      { kind: "assistant", id: "a2", blocks: [{ type: "text", text: "Hel", done: false }], status: "streaming", retried: false },
    ]);
    expect(b.streamingAssistantId).toBe("a2");
    expect(b.runId).toBe(7);
    expect(b.lastSeq).toBe(8);
    expect(b.turnCount).toBe(1);
    expect(runStatus(b)).toBe("running");

    const a = view(subscribed, "a");
    expect(a.transcript.map((item) => (item.kind === "assistant" ? item.status : item.text))).toEqual(["List documents", "done"]);
    expect(a.streamingAssistantId).toBeNull();
    expect(runningToolCallIds(a)).toEqual(["call_1"]);
    expect(toolCardState(a, "call_1")).toBe("running");
    expect(a.tools["call_1"]?.args).toEqual({ folder: "documents" });
    expect(a.tools["call_1"]?.updates).toEqual([progress]);
    expect(a.lastSeq).toBe(20);
    expect(statusLine(a).tokensUsed).toBe(4);

    const c = view(subscribed, "c");
    expect(runStatus(c)).toBe("settling");
    expect(c.lastSeq).toBe(5);

    for (const id of ["a", "b", "c"]) expect(canSend(view(subscribed, id))).toBe(false);
    expect(answeringIds(subscribed).sort()).toEqual(["a", "b", "c"]);
  });

  it("ignores live envelopes the snapshot already holds and applies the later ones, without loss or doubling", () => {
    const run = helloRun("b", 7);
    // Envelopes 4–8 are in the snapshot (the user's prompt, message_start, text_start, "Hel"); 9 onwards are new.
    const streamed = windowReducer(subscribed, envelopes(run.slice(3, 9)));
    const b = view(streamed, "b");
    expect(b.lastSeq).toBe(9);
    expect(b.transcript.filter((item) => item.kind === "user")).toHaveLength(1);
    expect(assistants(b).map((item) => item.blocks)).toEqual([[{ type: "text", text: "Hello", done: false }]]);

    const replayed = windowReducer(streamed, envelopes(run.slice(0, 9)));
    expect(view(replayed, "b")).toEqual(b);

    const settled = windowReducer(replayed, envelopes(run.slice(9)));
    const final = view(settled, "b");
    expect(final.transcript.map((item) => item.kind)).toEqual(["user", "assistant"]);
    expect(assistants(final)[0]).toMatchObject({ status: "done", blocks: [{ type: "text", text: "Hello", done: true }] });
    expect(statusLine(final).tokensUsed).toBe(9);
    expect(final.lastSeq).toBe(run.length);
    expect(canSend(final)).toBe(true);
    // The other runs are untouched by b's envelopes.
    expect(settled.views["a"]).toBe(subscribed.views["a"]);
  });

  it("a running tool's card takes the next progress updates and then ends", () => {
    const tool = (seq: number, payload: Parameters<typeof event>[0]): Envelope => ({
      v: 1,
      seq,
      conversationId: "a",
      runId: 3,
      kind: "event",
      event: payload,
    });
    const next = { content: [{ type: "text", text: "5 files so far" }], details: { scanned: 5 } };
    const state = reduce(subscribed, [
      envelopes([
        tool(20, { type: "tool_execution_update", toolCallId: "call_1", toolName: "list_folder", args: {}, partialResult: { stale: true } }),
        tool(21, { type: "tool_execution_update", toolCallId: "call_1", toolName: "list_folder", args: {}, partialResult: next }),
      ]),
    ]);
    expect(view(state, "a").tools["call_1"]?.updates).toEqual([progress, next]);
    const ended = windowReducer(
      state,
      envelopes([tool(22, { type: "tool_execution_end", toolCallId: "call_1", toolName: "list_folder", result: next, isError: false })]),
    );
    expect(runningToolCallIds(view(ended, "a"))).toEqual([]);
    expect(toolCardState(view(ended, "a"), "call_1")).toBe("done");
  });

  it("a settling run gives Send back at its idle notice, not at one already applied", () => {
    const idle = (seq: number): Envelope => ({ v: 1, seq, conversationId: "c", runId: 1, kind: "notice", notice: { type: "idle" } });
    const stale = windowReducer(subscribed, envelopes([idle(5)]));
    expect(runStatus(view(stale, "c"))).toBe("settling");
    const settled = windowReducer(stale, envelopes([idle(6)]));
    expect(runStatus(view(settled, "c"))).toBe("idle");
    expect(canSend(view(settled, "c"))).toBe(true);
  });

  it("at start-up shows the running conversation as the snapshot has it, not as get_state's older answer", () => {
    const loaded = windowReducer(subscribed, {
      type: "conversation_loaded",
      appState: appState("b", [userMessage("Say hello")], true),
      origin: "startup",
    });
    expect(loaded.shownId).toBe("b");
    expect(shownView(loaded)).toBe(subscribed.views["b"]);
    expect(canSend(shownView(loaded))).toBe(false);
  });
});

describe("a prompt of this window", () => {
  const start = showing("a");
  const run = helloRun("a", 4);
  const sent = windowReducer(start, prompt("a", "Say hello"));

  it("turns Send off at once and shows the prompt as pending", () => {
    expect(canSend(shownView(start))).toBe(true);
    expect(canSend(shownView(sent))).toBe(false);
    expect(runStatus(shownView(sent))).toBe("running");
    expect(shownView(sent).transcript).toEqual([
      { kind: "user", id: "u1", text: "Say hello", imageCount: 0, delivery: "pending" },
    ]);
  });

  it("accepted before its first envelope: the wait ends at that envelope, Send comes back only at idle", () => {
    const accepted = windowReducer(sent, chat("a", { type: "run_accepted", runId: 4 }));
    expect(shownView(accepted).submitting).toBe(true);
    expect(shownView(accepted).awaitedRunId).toBe(4);
    expect(canSend(shownView(accepted))).toBe(false);

    const states = trail(accepted, run.map((envelope) => envelopes([envelope])));
    expect(shownAt(states, 0).submitting).toBe(false);
    expect(shownAt(states, 0).awaitedRunId).toBeNull();
    expect(shownAt(states, 0).runId).toBe(4);
    expect(states.slice(0, -1).map((state) => canSend(shownView(state)))).toEqual(states.slice(0, -1).map(() => false));
    const final = shownAt(states, states.length - 1);
    expect(canSend(final)).toBe(true);
    expect(final.transcript).toEqual([
      { kind: "user", id: "u1", text: "Say hello", imageCount: 0, delivery: "sent" },
      expect.objectContaining({ kind: "assistant", status: "done", blocks: [{ type: "text", text: "Hello", done: true }] }),
    ]);
  });

  it("accepted after its first envelopes: the acceptance ends the wait, Send comes back only at idle", () => {
    const agentEnd = run.findIndex((envelope) => envelope.kind === "event" && envelope.event.type === "agent_end");
    const early = windowReducer(sent, envelopes(run.slice(0, 3)));
    expect(shownView(early).runId).toBe(4);
    expect(shownView(early).submitting).toBe(true);
    expect(canSend(shownView(early))).toBe(false);

    const accepted = windowReducer(early, chat("a", { type: "run_accepted", runId: 4 }));
    expect(shownView(accepted).submitting).toBe(false);
    expect(shownView(accepted).awaitedRunId).toBeNull();
    expect(canSend(shownView(accepted))).toBe(false);

    const states = trail(accepted, run.slice(3).map((envelope) => envelopes([envelope])));
    expect(states.slice(0, -1).map((state) => canSend(shownView(state)))).toEqual(states.slice(0, -1).map(() => false));
    expect(runStatus(shownAt(states, agentEnd - 3))).toBe("settling");
    expect(canSend(shownAt(states, states.length - 1))).toBe(true);
  });

  it("a run that settled before its acceptance came: Send waits for the acceptance, then comes back", () => {
    const settled = windowReducer(sent, envelopes(run));
    expect(shownView(settled).runId).toBeNull();
    expect(canSend(shownView(settled))).toBe(false);
    const accepted = windowReducer(settled, chat("a", { type: "run_accepted", runId: 4 }));
    expect(canSend(shownView(accepted))).toBe(true);
  });

  it("an envelope of an earlier run does not end the wait for the accepted one", () => {
    const accepted = windowReducer(sent, chat("a", { type: "run_accepted", runId: 4 }));
    const older = windowReducer(accepted, envelopes(tagged(numbered([notice({ type: "state", isStreaming: false, pendingToolCalls: [] })]), "a", 3)));
    expect(shownView(older).submitting).toBe(true);
    expect(canSend(shownView(older))).toBe(false);
  });

  it("refused: the prompt is marked not sent, the banner says why and Send is back", () => {
    const refused = windowReducer(
      sent,
      chat("a", { type: "command_failed", command: "prompt", error: { kind: "settings", code: "settings_unusable", detail: "No API key is set." } }),
    );
    const shown = shownView(refused);
    expect(canSend(shown)).toBe(true);
    expect(shown.submitting).toBe(false);
    expect(shown.transcript).toEqual([{ kind: "user", id: "u1", text: "Say hello", imageCount: 0, delivery: "failed" }]);
    expect(shown.banner).toEqual({ source: "command", kind: "settings", code: "settings_unusable", detail: "No API key is set." });
    expect(answeringIds(refused)).toEqual([]);
  });

  it("a refused Stop does not give Send back while the run goes on", () => {
    const running = reduce(sent, [chat("a", { type: "run_accepted", runId: 4 }), envelopes(run.slice(0, 6))]);
    const refused = reduce(running, [
      chat("a", { type: "stop_requested" }),
      chat("a", { type: "command_failed", command: "abort", error: { kind: "internal", code: "work_stopped", detail: "boom" } }),
    ]);
    expect(canSend(shownView(refused))).toBe(false);
    expect(shownView(refused).banner?.detail).toBe("boom");

    // Stop pressed before the run's first envelope: the prompt is still on its way.
    const early = reduce(sent, [
      chat("a", { type: "stop_requested" }),
      chat("a", { type: "command_failed", command: "abort", error: { kind: "internal", code: "work_stopped", detail: "boom" } }),
    ]);
    expect(shownView(early).submitting).toBe(true);
    expect(canSend(shownView(early))).toBe(false);
  });
});

describe("the protocol version", () => {
  it("an envelope of an unknown version sets protocolError and is not applied; the others are", () => {
    const start = showing("a");
    const [first, second, third] = tagged(
      numbered([event({ type: "agent_start" }), event({ type: "agent_end", messages: [] }), event({ type: "turn_start" })]),
      "a",
      1,
    );
    if (first === undefined || second === undefined || third === undefined) throw new Error("three envelopes");
    const state = windowReducer(start, envelopes([first, { ...second, v: 2 }, third]));
    expect(state.protocolError).toMatch(/version 2/);
    const shown = shownView(state);
    expect(shown.runStatus).toBe("running");
    expect(shown.turnCount).toBe(1);
    expect(shown.lastSeq).toBe(3);
    expect(start.protocolError).toBeNull();
  });

  it("a batch of only refused envelopes changes no conversation", () => {
    const start = showing("a");
    const refused = windowReducer(start, envelopes(tagged(numbered(runStart("hi")), "a", 1).map((envelope) => ({ ...envelope, v: 9 }))));
    expect(refused.protocolError).toMatch(/version 9/);
    expect(refused.views).toEqual(start.views);
    expect(canSend(shownView(refused))).toBe(true);
  });
});

describe("answering conversations", () => {
  it("are exactly those with a run in progress, and one drops out at its idle", () => {
    const runA = helloRun("a", 1);
    const runB = helloRun("b", 2);
    const state = reduce(showing("c"), [
      { type: "subscribed", snapshot: { runs: [] } },
      prompt("c", "not yet"),
    ]);
    expect(answeringIds(state)).toEqual([]);

    // Runs a and b are started elsewhere and followed from the snapshot.
    const followed = reduce(initialWindowState, [
      {
        type: "subscribed",
        snapshot: {
          runs: [
            { conversationId: "a", runId: 1, lastSeq: 1, phase: "running", turnCount: 0, messages: [], streaming: null, tools: [] },
            { conversationId: "b", runId: 2, lastSeq: 1, phase: "running", turnCount: 0, messages: [], streaming: null, tools: [] },
          ],
        },
      },
      { type: "conversation_loaded", appState: appState("c"), origin: "startup" },
    ]);
    expect(answeringIds(followed).sort()).toEqual(["a", "b"]);
    expect(isAnswering(view(followed, "c"))).toBe(false);

    const aDone = windowReducer(followed, envelopes([...runA.slice(1), ...runB.slice(1, -1)]));
    expect(answeringIds(aDone)).toEqual(["b"]);
    const bDone = windowReducer(aDone, envelopes(runB.slice(-1)));
    expect(answeringIds(bDone)).toEqual([]);
  });

  it("include this window's own run from its first envelope to its idle", () => {
    const run = helloRun("c", 5);
    const sent = reduce(showing("c"), [prompt("c", "Say hello"), chat("c", { type: "run_accepted", runId: 5 })]);
    expect(isAnswering(view(sent, "c"))).toBe(true);
    const states = trail(sent, run.map((envelope) => envelopes([envelope])));
    expect(states.slice(0, -1).map(answeringIds)).toEqual(states.slice(0, -1).map(() => ["c"]));
    expect(answeringIds(states[states.length - 1] ?? sent)).toEqual([]);
  });
});

describe("a conversation holding queued messages", () => {
  it("stays followed when the window switches away, so its held chips are there on coming back", () => {
    const shown = showing("a");
    const held = {
      ...shown,
      views: {
        ...shown.views,
        a: { ...view(shown, "a"), queue: [{ id: 3, kind: "follow_up" as const, text: "and then this", status: "held" as const, answering: false }] },
      },
    };

    const away = windowReducer(held, { type: "conversation_loaded", appState: appState("b"), origin: "switch" });
    const back = windowReducer(away, { type: "conversation_loaded", appState: appState("a"), origin: "switch" });

    expect(view(away, "a").queue.map((chip) => chip.text)).toEqual(["and then this"]);
    expect(view(back, "a").queue.map((chip) => chip.status)).toEqual(["held"]);
    const idle = windowReducer(showing("c"), { type: "conversation_loaded", appState: appState("d"), origin: "switch" });
    expect(idle.views["c"]).toBeUndefined();
  });
});

describe("the list revision", () => {
  it("changes on prompt_submitted and on every idle, not on the envelopes between", () => {
    const start = reduce(showing("a"), [
      {
        type: "subscribed",
        snapshot: { runs: [{ conversationId: "b", runId: 1, lastSeq: 0, phase: "running", turnCount: 0, messages: [], streaming: null, tools: [] }] },
      },
    ]);
    const runA = helloRun("a", 2);
    const runB = helloRun("b", 1);
    const sent = windowReducer(start, prompt("a", "Say hello"));
    expect(sent.listRevision).toBe(start.listRevision + 1);

    const streaming = windowReducer(sent, envelopes(runA.slice(0, -1)));
    expect(streaming.listRevision).toBe(sent.listRevision);
    const shownIdle = windowReducer(streaming, envelopes(runA.slice(-1)));
    expect(shownIdle.listRevision).toBe(sent.listRevision + 1);

    const background = windowReducer(shownIdle, envelopes(runB.slice(0, -1)));
    expect(background.listRevision).toBe(shownIdle.listRevision);
    const backgroundIdle = windowReducer(background, envelopes(runB.slice(-1)));
    expect(backgroundIdle.listRevision).toBe(shownIdle.listRevision + 1);

    // The idle of a conversation the window does not follow is not its business.
    const foreign = windowReducer(backgroundIdle, envelopes(helloRun("z", 9).slice(-1)));
    expect(foreign.listRevision).toBe(backgroundIdle.listRevision);
  });

  it("changes when a conversation is shown", () => {
    const start = showing("a");
    expect(start.listRevision).toBe(initialWindowState.listRevision + 1);
    const switched = windowReducer(start, { type: "conversation_loaded", appState: appState("b"), origin: "switch" });
    expect(switched.listRevision).toBe(start.listRevision + 1);
  });
});

describe("the window", () => {
  it("keeps the backend's app info for the title", () => {
    const info = { name: "Pi Desktop", version: "0.3.1", logDir: null, os: "linux", arch: "x86_64" };
    const state = windowReducer(showing("a"), { type: "app_info_loaded", appInfo: info });
    expect(state.appInfo).toEqual(info);
    expect(appTitle(state.appInfo)).toBe("Pi Desktop 0.3.1");
    expect(appTitle(initialWindowState.appInfo)).toBe("Pi Desktop");
  });

  it("shows an empty conversation before the host named one", () => {
    expect(initialWindowState.shownId).toBeNull();
    expect(shownView(initialWindowState).transcript).toEqual([]);
    expect(canSend(shownView(initialWindowState))).toBe(true);
  });

  it("never mutates the state or the envelopes it is given", () => {
    const run = deepFreeze(structuredClone(helloRun("a", 1)));
    const other = deepFreeze(structuredClone(helloRun("b", 2)));
    const state = deepFreeze(
      windowReducer(showing("a"), {
        type: "subscribed",
        snapshot: { runs: [{ conversationId: "b", runId: 2, lastSeq: 0, phase: "running", turnCount: 0, messages: [], streaming: null, tools: [] }] },
      }),
    );
    const before = structuredClone(state);
    const actions: WindowAction[] = [
      prompt("a", "Say hello"),
      chat("a", { type: "run_accepted", runId: 1 }),
      envelopes(run.slice(0, 5)),
      envelopes([...other, ...run.slice(5)]),
      { type: "conversation_loaded", appState: appState("c"), origin: "switch" },
    ];
    let next = state;
    for (const action of actions) next = deepFreeze(windowReducer(next, action));
    expect(state).toEqual(before);
    expect(next.shownId).toBe("c");
    expect(Object.keys(next.views)).toEqual(["c"]);
  });
});

describe("a conversation the host names later", () => {
  it("a prompt sent before any conversation was loaded becomes the one the host names, and its run is followed", () => {
    const sent = reduce(initialWindowState, [prompt("", "First question")]);
    expect(canSend(shownView(sent))).toBe(false);

    const named = reduce(sent, [
      { type: "conversation_named", conversationId: "c-9" },
      chat("c-9", { type: "run_accepted", runId: 1 }),
      envelopes(helloRun("c-9", 1, "First question")),
    ]);

    expect(named.shownId).toBe("c-9");
    expect(Object.keys(named.views)).toEqual(["c-9"]);
    const shown = shownView(named);
    expect(shown.transcript.map((item) => item.kind)).toEqual(["user", "assistant"]);
    expect(assistants(shown)[0]?.status).toBe("done");
    expect(canSend(shown)).toBe(true);
  });

  it("envelopes that overtake the acceptance name the unnamed conversation too", () => {
    const sent = reduce(initialWindowState, [prompt("", "First question")]);

    const streamed = reduce(sent, [envelopes(helloRun("c-9", 1, "First question"))]);

    expect(streamed.shownId).toBe("c-9");
    expect(shownView(streamed).transcript.filter((item) => item.kind === "user")).toHaveLength(1);
  });

  it("a run the host took in another conversation drops the unconfirmed message and gives Send back", () => {
    const sent = reduce(showing("c-1"), [prompt("c-1", "Hello")]);

    const moved = reduce(sent, [chat("c-1", { type: "run_taken_elsewhere" })]);

    expect(shownView(moved).transcript).toEqual([]);
    expect(canSend(shownView(moved))).toBe(true);
    const next = reduce(moved, [prompt("c-1", "Again")]);
    expect(shownView(next).transcript.map((item) => (item.kind === "user" ? item.text : ""))).toEqual(["Again"]);
  });

  it("an idle envelope already applied does not change the list revision", () => {
    const done = reduce(showing("c-1"), [envelopes(helloRun("c-1", 1))]);

    const again = reduce(done, [envelopes(helloRun("c-1", 1).slice(-1))]);

    expect(again).toBe(done);
  });
});

describe("queued steering and follow-up messages", () => {
  const listCall = { type: "toolCall" as const, id: "call_1", name: "list_folder", arguments: {} };
  const steerMessage = { id: 1, kind: "steer" as const, text: "only PDFs", status: "waiting" as const };
  const followUpMessage = { id: 2, kind: "follow_up" as const, text: "then sum them", status: "waiting" as const };
  const toolResult = {
    role: "toolResult" as const,
    toolCallId: "call_1",
    toolName: "list_folder",
    content: [{ type: "text" as const, text: "a.pdf" }],
    isError: false,
  };

  /** A run of "a" whose tool call is running when the user steers. */
  function steeredDuringTheToolCall(): Envelope[] {
    return tagged(
      numbered([
        ...runStart("List my files"),
        event({ type: "message_start", message: assistantMessage([listCall], "toolUse") }),
        event({ type: "message_end", message: assistantMessage([listCall], "toolUse") }),
        event({ type: "tool_execution_start", toolCallId: "call_1", toolName: "list_folder", args: {} }),
        notice({ type: "message_queued", message: steerMessage }),
      ]),
      "a",
      1,
    );
  }

  function afterTheBatch(): Envelope[] {
    const steer = userMessage("only PDFs");
    return tagged(
      numbered(
        [
          event({ type: "tool_execution_end", toolCallId: "call_1", toolName: "list_folder", result: toolResult, isError: false }),
          event({ type: "message_start", message: toolResult }),
          event({ type: "message_end", message: toolResult }),
          event({ type: "turn_end", message: assistantMessage([listCall], "toolUse"), toolResults: [toolResult] }),
          event({ type: "turn_start" }),
          event({ type: "message_start", message: steer }),
          notice({ type: "queued_message_consumed", id: 1 }),
          event({ type: "message_end", message: steer }),
          event({ type: "message_start", message: assistantMessage([{ type: "text", text: "One PDF." }], "stop") }),
          event({ type: "message_end", message: assistantMessage([{ type: "text", text: "One PDF." }], "stop") }),
        ],
        10,
      ),
      "a",
      1,
    );
  }

  const transcriptOf = (state: WindowState) =>
    shownView(state).transcript.map((item) => (item.kind === "user" ? `user: ${item.text}` : `assistant: ${item.status}`));

  it("shows a steering message as a chip until its message_start puts it in the transcript after the tool result", () => {
    const running = reduce(showing("a"), [
      prompt("a", "List my files"),
      chat("a", { type: "run_accepted", runId: 1 }),
      envelopes(steeredDuringTheToolCall()),
    ]);
    expect(shownView(running).queue).toEqual([{ ...steerMessage, answering: false }]);
    expect(transcriptOf(running)).toEqual(["user: List my files", "assistant: done"]);

    const answered = windowReducer(running, envelopes(afterTheBatch()));
    expect(shownView(answered).queue).toEqual([]);
    expect(transcriptOf(answered)).toEqual([
      "user: List my files",
      "assistant: done",
      "user: only PDFs",
      "assistant: done",
    ]);
    expect(toolCardState(shownView(answered), "call_1")).toBe("done");
  });

  it("keeps what Stop handed back after the run's idle, held, with Send enabled", () => {
    const running = reduce(showing("a"), [
      prompt("a", "List my files"),
      chat("a", { type: "run_accepted", runId: 1 }),
      envelopes(steeredDuringTheToolCall()),
    ]);
    const stopped = windowReducer(
      running,
      envelopes(
        tagged(
          numbered(
            [
              notice({ type: "message_queued", message: followUpMessage }),
              notice({ type: "queued_messages_held", ids: [1, 2] }),
              ...runEnd("Request was aborted"),
            ],
            20,
          ),
          "a",
          1,
        ),
      ),
    );
    const shown = shownView(stopped);
    expect(shown.queue.map((chip) => [chip.id, chip.kind, chip.status])).toEqual([
      [1, "steer", "held"],
      [2, "follow_up", "held"],
    ]);
    expect(canSend(shown)).toBe(true);
  });

  it("waits for the host's answer to Cancel, and a refused cancel brings the chip back with the banner", () => {
    const running = reduce(showing("a"), [
      prompt("a", "List my files"),
      chat("a", { type: "run_accepted", runId: 1 }),
      envelopes(steeredDuringTheToolCall()),
    ]);
    const asked = windowReducer(running, chat("a", { type: "queued_answer_requested", id: 1 }));
    expect(shownView(asked).queue[0]?.answering).toBe(true);

    const refusal = { kind: "invalid", code: "already_delivered", detail: "This message is already on its way to the model." };
    const refused = windowReducer(
      asked,
      chat("a", { type: "queued_answer_failed", id: 1, command: "cancel_queued", error: refusal }),
    );
    expect(shownView(refused).queue[0]?.answering).toBe(false);
    expect(shownView(refused).banner).toEqual({ source: "command", ...refusal });
    expect(shownView(refused).submitting).toBe(false);

    const cancelled = windowReducer(
      asked,
      envelopes(tagged(numbered([notice({ type: "queued_message_cancelled", id: 1 })], 10), "a", 1)),
    );
    expect(shownView(cancelled).queue).toEqual([]);
  });

  it("Send now between runs asks for a run like Send does, and the message shows once that run echoes it", () => {
    const held = reduce(showing("a"), [
      envelopes(
        tagged(
          numbered([
            notice({ type: "message_queued", message: followUpMessage }),
            notice({ type: "queued_messages_held", ids: [2] }),
          ]),
          "a",
        ),
      ),
    ]);
    const sending = windowReducer(held, chat("a", { type: "queued_send_requested", id: 2 }));
    expect(canSend(shownView(sending))).toBe(false);
    expect(runStatus(shownView(sending))).toBe("running");

    const accepted = reduce(sending, [
      envelopes(tagged(numbered([notice({ type: "queued_message_consumed", id: 2 })], 3), "a")),
      chat("a", { type: "run_accepted", runId: 1 }),
      envelopes(helloRun("a", 1, "then sum them").map((envelope) => ({ ...envelope, seq: envelope.seq + 3 }))),
    ]);
    expect(shownView(accepted).queue).toEqual([]);
    expect(transcriptOf(accepted)).toEqual(["user: then sum them", "assistant: done"]);
    expect(canSend(shownView(accepted))).toBe(true);

    const steered = windowReducer(sending, chat("a", { type: "queued_send_steered" }));
    expect(canSend(shownView(steered))).toBe(true);
  });

  it("a reload between runs brings the queue back with the conversation loaded after the snapshot", () => {
    const heldMessage = { ...steerMessage, status: "held" as const };
    const subscribed = windowReducer(initialWindowState, {
      type: "subscribed",
      snapshot: { runs: [], queues: [{ conversationId: "a", lastSeq: 12, messages: [heldMessage] }] },
    });
    expect(subscribed.views).toEqual({});
    // A notice that comes before the conversation is loaded keeps the snapshot's queue current.
    const noticed = windowReducer(
      subscribed,
      envelopes(tagged(numbered([notice({ type: "message_queued", message: followUpMessage })], 13), "a")),
    );
    const loaded = showing("a", noticed);
    expect(shownView(loaded).queue.map((chip) => [chip.id, chip.status])).toEqual([
      [1, "held"],
      [2, "waiting"],
    ]);
    expect(loaded.snapshotQueues).toEqual({});
  });

  it("a reload during a run gives the run's view the queue of the snapshot", () => {
    const run: RunSnapshot = {
      conversationId: "a",
      runId: 4,
      lastSeq: 9,
      phase: "running",
      turnCount: 1,
      messages: [userMessage("List my files")],
      streaming: assistantMessage([{ type: "text", text: "Look" }], "pending"),
      tools: [],
    };
    const subscribed = windowReducer(initialWindowState, {
      type: "subscribed",
      snapshot: { runs: [run], queues: [{ conversationId: "a", lastSeq: 9, messages: [steerMessage] }] },
    });
    expect(view(subscribed, "a").queue).toEqual([{ ...steerMessage, answering: false }]);
    expect(subscribed.snapshotQueues).toEqual({});
    expect(shownView(showing("a", subscribed)).queue).toHaveLength(1);
  });
});
