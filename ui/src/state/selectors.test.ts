import { describe, expect, it } from "vitest";

import { initialChatState, type ChatState } from "./chat";
import { appTitle, canSend, canStop, errorAdvice, fileListDetails, followsForeignRun, resultText, runStatus } from "./selectors";

describe("Send and Stop", () => {
  it("start idle with Send enabled and Stop off", () => {
    expect(canSend(initialChatState)).toBe(true);
    expect(canStop(initialChatState)).toBe(false);
    expect(runStatus(initialChatState)).toBe("idle");
  });

  it("keep Send off while the host says it is streaming, even when the run status is idle", () => {
    const state: ChatState = { ...initialChatState, backend: { isStreaming: true, pendingToolCalls: [] } };
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
    expect(appTitle(initialChatState)).toBe("Pi Desktop");
    expect(appTitle({ ...initialChatState, appInfo: { name: "Pi Desktop", version: "1.2.3", logDir: null, os: "linux", arch: "x86_64" } })).toBe("Pi Desktop 1.2.3");
  });
});

describe("a run this window cannot follow", () => {
  it("is one the host reports while this window sent nothing", () => {
    const reloaded: ChatState = { ...initialChatState, backend: { isStreaming: true, pendingToolCalls: [] } };
    expect(followsForeignRun(reloaded)).toBe(true);
    expect(followsForeignRun({ ...reloaded, submitting: true })).toBe(false);
    expect(followsForeignRun({ ...reloaded, runStatus: "running" })).toBe(false);
    expect(followsForeignRun(initialChatState)).toBe(false);
  });
});
