import { describe, expect, it } from "vitest";

import type { AssistantBlock, Envelope } from "../ipc/wire";
import abortDuringStreaming from "./__fixtures__/abort_during_streaming.envelopes.json";
import {
  assistantMessage,
  event,
  notice,
  numbered,
  runEnd,
  runStart,
  tagged,
  update,
} from "./__fixtures__/builders";
import providerErrorFirstRequest from "./__fixtures__/provider_error_first_request.envelopes.json";
import providerErrorMidStream from "./__fixtures__/provider_error_mid_stream.envelopes.json";
import thinkingThenText from "./__fixtures__/thinking_then_text.envelopes.json";
import toolProgressUpdates from "./__fixtures__/tool_progress_updates.envelopes.json";
import toolsTwoParallel from "./__fixtures__/tools_two_parallel.envelopes.json";
import { applyEnvelope, chatReducer, initialChatState, type AssistantItem, type ChatState } from "./chat";
import { viewFromAppState } from "./conversation-load";
import {
  canSend,
  canStop,
  errorAdvice,
  fileListDetails,
  retryableAssistantId,
  runStatus,
  runningToolCallIds,
  statusLine,
  toolCardState,
} from "./selectors";

/** Recorded sequences are JSON; the reducer takes them as the wire types they are. */
function recorded(json: unknown): Envelope[] {
  return json as Envelope[];
}

function replay(envelopes: readonly Envelope[], from: ChatState = initialChatState): ChatState {
  return envelopes.reduce(applyEnvelope, from);
}

/** Every intermediate state of a replay, after each envelope. */
function states(envelopes: readonly Envelope[], from: ChatState = initialChatState): ChatState[] {
  const result: ChatState[] = [];
  let state = from;
  for (const envelope of envelopes) {
    state = applyEnvelope(state, envelope);
    result.push(state);
  }
  return result;
}

function assistants(state: ChatState): AssistantItem[] {
  return state.transcript.filter((item): item is AssistantItem => item.kind === "assistant");
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

describe("replaying recorded runs", () => {
  it("thinking then text: one user message and one finished answer with both blocks", () => {
    const state = replay(recorded(thinkingThenText));
    expect(state.transcript).toEqual([
      { kind: "user", id: "u1", text: "Pick a number.", imageCount: 0, delivery: "sent" },
      {
        kind: "assistant",
        id: "a2",
        blocks: [
          { type: "thinking", text: "The user wants a number.", redacted: false, done: true },
          { type: "text", text: "42", done: true },
        ],
        status: "done",
        stopReason: "stop",
        model: "scripted-reasoner",
        usage: expect.objectContaining({ totalTokens: 29 }),
        retried: false,
      },
    ]);
    expect(state.runStatus).toBe("idle");
    expect(state.turnCount).toBe(1);
    expect(statusLine(state).tokensUsed).toBe(29);
    expect(canSend(state)).toBe(true);
  });

  it("shows thinking live before the answer text arrives", () => {
    const envelopes = recorded(thinkingThenText);
    const afterFirstThinkingDelta = envelopes.findIndex(
      (envelope) =>
        envelope.kind === "event" &&
        envelope.event.type === "message_update" &&
        envelope.event.assistantMessageEvent.type === "thinking_delta",
    );
    const state = replay(envelopes.slice(0, afterFirstThinkingDelta + 1));
    expect(assistants(state)[0]?.blocks).toEqual([
      { type: "thinking", text: "The user wants ", redacted: false, done: false },
    ]);
    expect(assistants(state)[0]?.status).toBe("streaming");
  });

  it("goes running → settling → idle, and enables Send only at the idle notice", () => {
    const envelopes = recorded(thinkingThenText);
    const trail = states(envelopes);
    const statuses = trail.map(runStatus);
    const agentEnd = envelopes.findIndex((envelope) => envelope.kind === "event" && envelope.event.type === "agent_end");
    const idle = envelopes.length - 1;

    expect(statuses.slice(0, agentEnd).every((status) => status === "running")).toBe(true);
    expect(statuses.slice(agentEnd, idle)).toEqual(statuses.slice(agentEnd, idle).map(() => "settling"));
    expect(statuses[idle]).toBe("idle");
    expect(trail.slice(0, idle).map(canSend)).toEqual(trail.slice(0, idle).map(() => false));
    expect(trail.slice(0, idle).every(canStop)).toBe(true);
    expect(canSend(trail[idle] ?? initialChatState)).toBe(true);
    expect(canStop(trail[idle] ?? initialChatState)).toBe(false);
  });

  it("tool progress: the card runs, records each update, then is done", () => {
    const envelopes = recorded(toolProgressUpdates);
    const trail = states(envelopes);
    const firstUpdate = envelopes.findIndex(
      (envelope) => envelope.kind === "event" && envelope.event.type === "tool_execution_update",
    );
    const during = trail[firstUpdate + 2] ?? initialChatState;
    expect(toolCardState(during, "call_build")).toBe("running");
    expect(runningToolCallIds(during)).toEqual(["call_build"]);
    expect(during.tools["call_build"]?.updates).toEqual([
      { content: [{ type: "text", text: "25%" }], details: { pct: 25 } },
      { content: [{ type: "text", text: "50%" }], details: { pct: 50 } },
      { content: [{ type: "text", text: "75%" }], details: { pct: 75 } },
    ]);

    const final = trail[trail.length - 1] ?? initialChatState;
    expect(toolCardState(final, "call_build")).toBe("done");
    expect(runningToolCallIds(final)).toEqual([]);
    expect(final.tools["call_build"]?.result).toEqual({ content: [{ type: "text", text: "built" }], details: { pct: 100 } });
    expect(assistants(final).map((item) => item.status)).toEqual(["done", "done"]);
    expect(final.turnCount).toBe(2);
  });

  it("two parallel tools: both cards end done and the run takes two turns", () => {
    const final = replay(recorded(toolsTwoParallel));
    const calls = assistants(final)[0]?.blocks.filter((block) => block.type === "toolCall") ?? [];
    expect(calls.map((call) => call.type === "toolCall" && call.id)).toEqual(Object.keys(final.tools));
    expect(Object.keys(final.tools).map((id) => toolCardState(final, id))).toEqual(["done", "done"]);
    expect(final.turnCount).toBe(2);
  });

  it("provider error mid-stream: the partial answer keeps its text and fails with network advice", () => {
    const final = replay(recorded(providerErrorMidStream));
    const answer = assistants(final)[0];
    expect(answer?.status).toBe("error");
    expect(answer?.errorMessage).toBe("socket hang up");
    expect(answer?.blocks).toEqual([{ type: "text", text: "Here is the ans", done: true }]);
    expect(answer === undefined ? null : errorAdvice(answer)).toBe("network");
    expect(retryableAssistantId(final)).toBe(answer?.id);
    expect(canSend(final)).toBe(true);
  });

  it("provider error on the first request: an empty answer with advice about the key", () => {
    const final = replay(recorded(providerErrorFirstRequest));
    const answer = assistants(final)[0];
    expect(answer?.status).toBe("error");
    expect(answer?.blocks).toEqual([]);
    expect(answer === undefined ? null : errorAdvice(answer)).toBe("auth");
  });

  it("aborted: the answer so far is kept and marked stopped; Retry is offered only after idle", () => {
    const envelopes = recorded(abortDuringStreaming);
    const trail = states(envelopes);
    const final = trail[trail.length - 1] ?? initialChatState;
    const answer = assistants(final)[0];
    expect(answer?.status).toBe("stopped");
    expect(answer?.blocks).toEqual([{ type: "text", text: "Hello", done: true }]);
    expect(answer === undefined ? null : errorAdvice(answer)).toBe("aborted");
    expect(trail.slice(0, -1).map(retryableAssistantId)).toEqual(trail.slice(0, -1).map(() => null));
    expect(retryableAssistantId(final)).toBe(answer?.id);
  });

  it("an answer ended by the idle timeout gets the stalled advice, not the network one", () => {
    const timedOut = (errorMessage: string) => errorAdvice({ status: "error", errorMessage });
    expect(timedOut("llama.cpp stopped sending data for 120.0 s (idle timeout); the response is incomplete. Try again.")).toBe(
      "stalled",
    );
    expect(timedOut("Could not reach Ollama at http://127.0.0.1:11434/v1: connection refused.")).toBe("network");
    expect(timedOut("OpenAI did not answer within 30.0 s (request timeout).")).toBe("network");
  });

  it("never mutates the state or the envelopes it is given", () => {
    const envelopes = deepFreeze(structuredClone(recorded(toolProgressUpdates)));
    const start = deepFreeze(structuredClone(initialChatState));
    let state: ChatState = start;
    for (const envelope of envelopes) state = deepFreeze(applyEnvelope(state, envelope));
    expect(state.transcript.length).toBe(3);
    expect(start).toEqual(initialChatState);
  });
});

describe("hand-written envelopes", () => {
  it("appends coalesced text deltas in order while streaming", () => {
    const envelopes = numbered([
      ...runStart("Say hello"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0, block: { type: "text", text: "" } }),
      update({ type: "text_delta", contentIndex: 0, delta: "Hel" }),
      update({ type: "text_delta", contentIndex: 0, delta: "lo, wor" }),
      update({ type: "text_delta", contentIndex: 0, delta: "ld! 你好" }),
    ]);
    const state = replay(envelopes);
    expect(assistants(state)[0]?.blocks).toEqual([{ type: "text", text: "Hello, world! 你好", done: false }]);
    expect(assistants(state)[0]?.status).toBe("streaming");
    expect(state.streamingAssistantId).toBe("a2");
  });

  it("takes the final message at message_end as the truth", () => {
    const envelopes = numbered([
      ...runStart("Say hello"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
      update({ type: "text_delta", contentIndex: 0, delta: "Hel" }),
      event({
        type: "message_end",
        message: assistantMessage([{ type: "text", text: "Hello" }], "stop", { totalTokens: 12 }),
      }),
      ...runEnd(),
    ]);
    const state = replay(envelopes);
    expect(assistants(state)[0]?.blocks).toEqual([{ type: "text", text: "Hello", done: true }]);
    expect(statusLine(state).tokensUsed).toBe(12);
  });

  it("streams tool-call arguments, then shows the list_download_files file list", () => {
    const files = [
      { name: "report.pdf", relativePath: "report.pdf", size: 2_097_152, modifiedMs: 1_700_000_000_000, kind: "pdf" },
      { name: "notes.txt", relativePath: "notes.txt", size: 812, modifiedMs: 1_690_000_000_000, kind: "text" },
    ];
    const call = { type: "toolCall" as const, id: "call_1", name: "list_download_files", arguments: {} };
    const args = { extensions: ["pdf", "txt"] };
    const midway = numbered([
      ...runStart("What is in Downloads?"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "toolcall_start", contentIndex: 0, block: call }),
      update({ type: "toolcall_delta", contentIndex: 0, delta: '{"extensions":' }),
      update({ type: "toolcall_delta", contentIndex: 0, delta: '["pdf","txt"]}' }),
    ]);
    const streaming = replay(midway);
    expect(assistants(streaming)[0]?.blocks).toEqual([
      { type: "toolCall", id: "call_1", name: "list_download_files", argsText: '{"extensions":["pdf","txt"]}', arguments: {}, done: false },
    ]);
    expect(toolCardState(streaming, "call_1")).toBe("running");

    const rest = numbered(
      [
        update({ type: "toolcall_end", contentIndex: 0, toolCall: { ...call, arguments: args } }),
        event({ type: "message_end", message: assistantMessage([{ ...call, arguments: args }], "toolUse") }),
        event({ type: "tool_execution_start", toolCallId: "call_1", toolName: "list_download_files", args }),
        notice({ type: "state", isStreaming: true, pendingToolCalls: ["call_1"] }),
        event({
          type: "tool_execution_end",
          toolCallId: "call_1",
          toolName: "list_download_files",
          result: {
            content: [{ type: "text", text: "{}" }],
            details: { folder: "downloads", path: "", entries: files, totalMatched: 2, scanned: 2, skipped: 0, scanTruncated: false, nextCursor: null },
          },
          isError: false,
        }),
      ],
      midway.length + 1,
    );
    const ended = replay(rest, streaming);
    expect(toolCardState(ended, "call_1")).toBe("done");
    expect(ended.tools["call_1"]?.args).toEqual(args);
  });

  it("a tool that fails shows an error card", () => {
    const call = { type: "toolCall" as const, id: "call_x", name: "read_document", arguments: { path: "a.pdf" } };
    const state = replay(
      numbered([
        ...runStart("Read a.pdf"),
        event({ type: "message_start", message: assistantMessage([], "pending") }),
        event({ type: "message_end", message: assistantMessage([call], "toolUse") }),
        event({ type: "tool_execution_start", toolCallId: "call_x", toolName: "read_document", args: call.arguments }),
        event({
          type: "tool_execution_end",
          toolCallId: "call_x",
          toolName: "read_document",
          result: { content: [{ type: "text", text: "No such file" }], details: {} },
          isError: true,
        }),
      ]),
    );
    expect(toolCardState(state, "call_x")).toBe("error");
  });

  it("a tool call that never ran before the run settled counts as an error, not as running forever", () => {
    const call = { type: "toolCall" as const, id: "call_y", name: "list_folder", arguments: {} };
    const envelopes = numbered([
      ...runStart("List"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      event({ type: "message_end", message: assistantMessage([call], "aborted", { errorMessage: "Request was aborted" }) }),
      ...runEnd("Request was aborted"),
    ]);
    const trail = states(envelopes);
    expect(toolCardState(trail[envelopes.length - 2] ?? initialChatState, "call_y")).toBe("running");
    expect(toolCardState(trail[envelopes.length - 1] ?? initialChatState, "call_y")).toBe("error");
  });

  it("ignores an envelope already applied (a seq not above lastSeq), however often it comes again", () => {
    const envelopes = numbered([
      ...runStart("Say hello"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
      update({ type: "text_delta", contentIndex: 0, delta: "Hel" }),
      update({ type: "text_delta", contentIndex: 0, delta: "lo" }),
    ]);
    const once = replay(envelopes);
    expect(once.lastSeq).toBe(envelopes.length);
    const again = replay([...envelopes.slice(3), ...envelopes.slice(-2)], once);
    expect(again).toBe(once);
    expect(assistants(again).map((item) => item.blocks)).toEqual([[{ type: "text", text: "Hello", done: false }]]);
  });

  it("ignores unknown notice and event types (a newer host), keeping everything else", () => {
    const before = replay(numbered(runStart("hi")));
    const unknownNotice = { v: 1, seq: 6, kind: "notice", notice: { type: "quota", remaining: 3 } } as unknown as Envelope;
    const unknownEvent = { v: 1, seq: 7, kind: "event", event: { type: "compaction_start" } } as unknown as Envelope;
    const unknownKind = { v: 1, seq: 8, kind: "telemetry" } as unknown as Envelope;
    const unknownDelta = {
      v: 1,
      seq: 9,
      kind: "event",
      event: { type: "message_update", assistantMessageEvent: { type: "image_delta", contentIndex: 0 } },
    } as unknown as Envelope;
    const after = replay([unknownNotice, unknownEvent, unknownKind, unknownDelta], before);
    expect({ ...after, lastSeq: before.lastSeq }).toEqual(before);
  });

  it("shows a host error notice in the banner", () => {
    const state = applyEnvelope(initialChatState, {
      v: 1,
      seq: 1,
      kind: "notice",
      notice: { type: "error", source: "persistence", message: "Could not save the conversation: disk full." },
    });
    expect(state.banner).toEqual({
      source: "notice",
      kind: "persistence",
      code: "persistence",
      detail: "Could not save the conversation: disk full.",
    });
  });
});

describe("the UI's own intents", () => {
  it("shows the sent prompt at once and does not duplicate it when the host echoes it", () => {
    const submitted = chatReducer(initialChatState, { type: "prompt_submitted", text: "  hello  ", imageCount: 0 });
    expect(submitted.transcript).toEqual([{ kind: "user", id: "u1", text: "hello", imageCount: 0, delivery: "pending" }]);
    expect(canSend(submitted)).toBe(false);
    expect(runStatus(submitted)).toBe("running");

    const echoed = replay(numbered(runStart("hello")), submitted);
    expect(echoed.transcript).toEqual([{ kind: "user", id: "u1", text: "hello", imageCount: 0, delivery: "sent" }]);
  });

  it("a steering message during the run becomes its own user message", () => {
    const steer = { role: "user" as const, content: "also count them" };
    const state = replay(numbered([...runStart("list files"), event({ type: "message_start", message: steer })]));
    expect(state.transcript.map((item) => item.kind === "user" && item.text)).toEqual(["list files", "also count them"]);
  });

  it("a refused prompt marks the message not sent, shows the banner and gives Send back", () => {
    const submitted = chatReducer(initialChatState, { type: "prompt_submitted", text: "hello", imageCount: 0 });
    const failed = chatReducer(submitted, {
      type: "command_failed",
      command: "prompt",
      error: { kind: "settings", code: "settings_unusable", detail: "No API key is set. Open Settings and add one." },
    });
    expect(failed.transcript).toEqual([{ kind: "user", id: "u1", text: "hello", imageCount: 0, delivery: "failed" }]);
    expect(failed.banner).toEqual({ source: "command", kind: "settings", code: "settings_unusable", detail: "No API key is set. Open Settings and add one." });
    expect(canSend(failed)).toBe(true);
  });

  it("ignores a blank prompt", () => {
    expect(chatReducer(initialChatState, { type: "prompt_submitted", text: " \n\t ", imageCount: 0 })).toBe(initialChatState);
  });

  it("Retry hides the failed answer's Retry and keeps Send off until the continued run settles", () => {
    const failed = replay(recorded(providerErrorMidStream));
    const id = retryableAssistantId(failed);
    expect(id).not.toBeNull();
    const retrying = chatReducer(failed, { type: "continue_submitted", assistantId: id ?? "" });
    expect(retryableAssistantId(retrying)).toBeNull();
    expect(canSend(retrying)).toBe(false);
    const refused = chatReducer(retrying, {
      type: "command_failed",
      command: "continue_run",
      error: { kind: "busy", code: "busy", detail: "Agent is already processing." },
    });
    expect(retryableAssistantId(refused)).toBe(id);
  });

  it("loads a stored conversation with its tool results on the cards", () => {
    const call = { type: "toolCall" as const, id: "call_1", name: "list_folder", arguments: { folder: "documents" } };
    const state = viewFromAppState({
      conversationId: "c1",
      isStreaming: false,
      pendingToolCalls: [],
      model: { provider: "test", id: "m", api: "openai-completions", contextWindow: 128000, imageInput: false, priced: false },
      thinkingLevel: "off",
      messages: [
        { role: "user", content: "what is in documents?" },
        assistantMessage([call], "toolUse", { totalTokens: 10 }),
        { role: "toolResult", toolCallId: "call_1", toolName: "list_folder", content: [], details: { entries: [] }, isError: false },
        assistantMessage([{ type: "text", text: "Nothing." }], "stop", { totalTokens: 5 }),
      ],
    });
    expect(state.conversationId).toBe("c1");
    expect(state.transcript.map((item) => item.kind)).toEqual(["user", "assistant", "assistant"]);
    expect(toolCardState(state, "call_1")).toBe("done");
    expect(statusLine(state).tokensUsed).toBe(5);
    expect(statusLine(state).usage).toMatchObject({ calls: 2, input: 15, output: 0, cost: null });
    expect(canSend(state)).toBe(true);
  });
});

describe("the run state from the envelopes' run ids", () => {
  it("a run is in progress from its first envelope, whatever it is, to its idle notice", () => {
    const envelopes = tagged(numbered([notice({ type: "state", isStreaming: true, pendingToolCalls: [] }), ...runStart("hi"), ...runEnd()]), "c1", 3);
    const trail = states(envelopes);
    expect(trail[0]?.runId).toBe(3);
    expect(runStatus(trail[0] ?? initialChatState)).toBe("running");
    expect(trail.slice(0, -1).map(canSend)).toEqual(trail.slice(0, -1).map(() => false));
    const final = trail[trail.length - 1] ?? initialChatState;
    expect(final.runId).toBeNull();
    expect(final.lastRunId).toBe(3);
    expect(final.runStatus).toBe("idle");
    expect(canSend(final)).toBe(true);
  });

  it("a notice between runs (no run id) starts nothing", () => {
    const state = applyEnvelope(initialChatState, {
      v: 1,
      seq: 1,
      conversationId: "c1",
      kind: "notice",
      notice: { type: "error", source: "settings", message: "Could not save the settings." },
    });
    expect(state.runId).toBeNull();
    expect(canSend(state)).toBe(true);
    expect(state.banner?.kind).toBe("settings");
  });

  it("the idle notice closes an answer the host left streaming", () => {
    const envelopes = tagged(
      numbered([
        ...runStart("hi"),
        event({ type: "message_start", message: assistantMessage([], "pending") }),
        update({ type: "text_delta", contentIndex: 0, delta: "Half" }),
        notice({ type: "idle" }),
      ]),
      "c1",
      1,
    );
    const final = replay(envelopes);
    expect(final.streamingAssistantId).toBeNull();
    expect(assistants(final).map((item) => [item.status, item.blocks])).toEqual([
      ["done", [{ type: "text", text: "Half", done: true }]],
    ]);
    expect(canSend(final)).toBe(true);
  });
});

describe("what the real host sends", () => {
  // Recorded from desktop-host's `pi-chat --api scripted --json` (a scripted model that lists Downloads).
  it("a list_download_files run ends with a done card holding the file list and Send back on", async () => {
    const { default: json } = await import("./__fixtures__/pi_chat_list_downloads.envelopes.json");
    const envelopes = recorded(json);
    const trail = states(envelopes);
    const final = trail[trail.length - 1] ?? initialChatState;
    expect(final.transcript.map((item) => `${item.kind}:${item.kind === "assistant" ? item.status : item.text}`)).toEqual([
      "user:What PDFs are in my Downloads?",
      "assistant:done",
      "assistant:done",
    ]);
    expect(toolCardState(final, "scripted_call_1")).toBe("done");
    expect(fileListDetails(final.tools["scripted_call_1"]?.result)?.entries.map((entry) => entry.name)).toEqual(["report.pdf"]);
    expect(trail.slice(0, -1).some(canSend)).toBe(false);
    expect(canSend(final)).toBe(true);
    expect(final.lastSeq).toBe(envelopes.length);
  });
});

describe("the lean stream", () => {
  // What the host's lean stream sends (desktop-host wire::lean): each block's text once, in its deltas.
  const leanRun = (finalText: AssistantBlock): Envelope[] =>
    numbered([
      ...runStart("Think, then answer"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "thinking_start", contentIndex: 0, block: { type: "thinking", thinking: "" } }),
      update({ type: "thinking_delta", contentIndex: 0, delta: "Let me " }),
      update({ type: "thinking_delta", contentIndex: 0, delta: "see." }),
      update({ type: "thinking_end", contentIndex: 0 }),
      update({ type: "text_start", contentIndex: 1, block: { type: "text", text: "" } }),
      update({ type: "text_delta", contentIndex: 1, delta: "Two " }),
      update({ type: "text_delta", contentIndex: 1, delta: "**PDFs**." }),
      update({ type: "text_end", contentIndex: 1 }),
      event({
        type: "message_end",
        message: assistantMessage([{ type: "thinking", thinking: "", streamed: true }, finalText], "stop"),
      }),
      event({ type: "turn_end" }),
      ...runEnd(),
    ]);

  it("keeps the text the deltas built where the end events leave it out", () => {
    const envelopes = leanRun({ type: "text", text: "", streamed: true });
    const textEnd = envelopes.findIndex(
      (envelope) =>
        envelope.kind === "event" &&
        envelope.event.type === "message_update" &&
        envelope.event.assistantMessageEvent.type === "text_end",
    );
    const afterTextEnd = replay(envelopes.slice(0, textEnd + 1));
    const ended = replay(envelopes);

    expect(assistants(afterTextEnd)[0]?.blocks[1]).toEqual({ type: "text", text: "Two **PDFs**.", done: true });
    expect(assistants(ended)[0]?.blocks).toEqual([
      { type: "thinking", text: "Let me see.", redacted: false, done: true },
      { type: "text", text: "Two **PDFs**.", done: true },
    ]);
    expect(assistants(ended)[0]?.status).toBe("done");
    expect(canSend(ended)).toBe(true);
  });

  it("takes a final text the host sent whole over what was streamed", () => {
    const final = assistants(replay(leanRun({ type: "text", text: "Two **PDFs** (corrected)." })))[0];

    expect(final?.blocks[1]).toEqual({ type: "text", text: "Two **PDFs** (corrected).", done: true });
  });
});
