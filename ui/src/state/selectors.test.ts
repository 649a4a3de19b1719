import { describe, expect, it } from "vitest";

import { assistantMessage } from "./__fixtures__/builders";
import { finalAssistant, initialChatState, type ChatState, type ToolRun } from "./chat";
import { blocksFromMessage } from "./assistant-blocks";
import {
  appTitle,
  canSend,
  canStop,
  errorAdvice,
  fileListDetails,
  lastAnswerModel,
  resultText,
  retryableAssistantId,
  runStatus,
  runningToolCallIds,
  toolCardState,
} from "./selectors";

describe("Send and Stop", () => {
  it("start idle with Send enabled and Stop off", () => {
    expect(canSend(initialChatState)).toBe(true);
    expect(canStop(initialChatState)).toBe(false);
    expect(runStatus(initialChatState)).toBe("idle");
  });

  it("keep Send off while a run is in progress (its envelopes came), even before agent_start", () => {
    const state: ChatState = { ...initialChatState, runId: 4, lastRunId: 4 };
    expect(canSend(state)).toBe(false);
    expect(canStop(state)).toBe(true);
    expect(runStatus(state)).toBe("running");
  });

  it("keep Send off while this window's prompt is on its way", () => {
    const state: ChatState = { ...initialChatState, submitting: true };
    expect(canSend(state)).toBe(false);
    expect(canStop(state)).toBe(true);
    expect(runStatus(state)).toBe("running");
  });

  it("keep Send off while settling", () => {
    const state: ChatState = { ...initialChatState, runStatus: "settling" };
    expect(canSend(state)).toBe(false);
    expect(runStatus(state)).toBe("settling");
  });
});

describe("error advice", () => {
  it.each([
    ["401 Unauthorized: invalid x-api-key", "auth"],
    ["Incorrect API key provided", "auth"],
    ["socket hang up", "network"],
    ["error sending request for url (https://api.example.com)", "network"],
    ["connect ECONNREFUSED 127.0.0.1:443", "network"],
    ["429 Too Many Requests", "rate_limit"],
    ["This model's maximum context length is 8192 tokens", "context"],
    ["500 Internal Server Error", "provider"],
  ] as const)("%s → %s", (message, advice) => {
    expect(errorAdvice({ status: "error", errorMessage: message })).toBe(advice);
  });

  it("a stopped answer is advice to retry from where it stopped", () => {
    expect(errorAdvice({ status: "stopped", errorMessage: "Request was aborted" })).toBe("aborted");
  });
});

describe("tool results", () => {
  it("reads a listing tool's file list from the result details", () => {
    const result = {
      content: [{ type: "text", text: "{}" }],
      details: {
        folder: "downloads",
        path: "",
        entries: [{ name: "a.pdf", relativePath: "a.pdf", size: 10, kind: "pdf" }, { broken: true }],
        totalMatched: 5,
        scanTruncated: true,
        nextCursor: "c1",
      },
    };
    expect(fileListDetails(result)).toEqual({
      folder: "downloads",
      path: "",
      entries: [{ name: "a.pdf", relativePath: "a.pdf", size: 10, kind: "pdf" }],
      totalMatched: 5,
      scanTruncated: true,
      nextCursor: "c1",
    });
  });

  it("finds no file list in other results", () => {
    expect(fileListDetails({ content: [], details: { pct: 100 } })).toBeNull();
    expect(fileListDetails(null)).toBeNull();
    expect(fileListDetails("text")).toBeNull();
  });

  it("joins a result's text blocks", () => {
    expect(resultText({ content: [{ type: "text", text: "a" }, { type: "image", data: "" }, { type: "text", text: "b" }] })).toBe("ab");
    expect(resultText({ details: {} })).toBe("");
  });
});

describe("title", () => {
  it("names the app after what the backend reports", () => {
    expect(appTitle(null)).toBe("Pi Desktop");
    expect(appTitle({ name: "Pi Desktop", version: "1.2.3", logDir: null, os: "linux", arch: "x86_64" })).toBe("Pi Desktop 1.2.3");
  });
});

describe("tool cards", () => {
  const run = (toolCallId: string, status: ToolRun["status"]): ToolRun => ({
    toolCallId,
    toolName: "list_folder",
    args: {},
    status,
    updates: [],
  });
  const call = (id: string) => ({ type: "toolCall" as const, id, name: "list_folder", arguments: {} });
  const withCalls: ChatState = {
    ...initialChatState,
    transcript: [
      { kind: "assistant", id: "a1", blocks: blocksFromMessage([call("c1"), call("c2"), call("c3"), call("c4")], false), status: "streaming", retried: false },
    ],
    tools: { c1: run("c1", "done"), c2: run("c2", "running"), c3: run("c3", "error"), c4: run("c4", "running") },
  };

  it("the running tool calls are the executions that run, in start order, not the calls in the answer", () => {
    expect(runningToolCallIds(withCalls)).toEqual(["c2", "c4"]);
    expect(runningToolCallIds({ ...withCalls, tools: {} })).toEqual([]);
  });

  it("a call waiting to execute runs while the run is in progress and is an error once it settled", () => {
    const active: ChatState = { ...withCalls, runId: 2, lastRunId: 2, runStatus: "running" };
    expect(toolCardState(active, "c5")).toBe("running");
    expect(toolCardState(active, "c2")).toBe("running");
    expect(toolCardState(active, "c3")).toBe("error");
    expect(toolCardState(withCalls, "c5")).toBe("error");
    expect(toolCardState(withCalls, "c2")).toBe("error");
    expect(toolCardState(withCalls, "c1")).toBe("done");
  });
});

describe("Retry", () => {
  const failed: ChatState = {
    ...initialChatState,
    transcript: [
      { kind: "user", id: "u1", text: "hi", imageCount: 0, delivery: "sent" },
      {
        kind: "assistant",
        id: "a2",
        blocks: blocksFromMessage(assistantMessage([], "error").content, true),
        status: "error",
        errorMessage: "socket hang up",
        retried: false,
      },
    ],
  };

  it("is offered for the last failed answer once the run settled, not during a run", () => {
    expect(retryableAssistantId(failed)).toBe("a2");
    expect(retryableAssistantId({ ...failed, runId: 3, lastRunId: 3 })).toBeNull();
    expect(retryableAssistantId({ ...failed, runStatus: "settling" })).toBeNull();
    expect(retryableAssistantId({ ...failed, submitting: true })).toBeNull();
  });
});

describe("the model in the status line", () => {
  it("is the model the newest answer came from, whatever was chosen since", () => {
    const first = finalAssistant("a1", { ...assistantMessage([{ type: "text", text: "one" }], "stop"), model: "llama3.2" }, false);
    const second = finalAssistant("a2", { ...assistantMessage([{ type: "text", text: "two" }], "stop"), model: "qwen3:8b" }, false);
    const user = { kind: "user" as const, id: "u1", text: "hi", imageCount: 0, delivery: "sent" as const };
    expect(lastAnswerModel([])).toBeNull();
    expect(lastAnswerModel([user, first, user])).toBe("llama3.2");
    expect(lastAnswerModel([user, first, user, second])).toBe("qwen3:8b");
  });
});
