import { describe, expect, it } from "vitest";

import type { ApprovalRequest, Envelope } from "../ipc/wire";
import { assistantMessage, event, notice, numbered, runStart, tagged } from "./__fixtures__/builders";
import { chatReducer, initialChatState, type ChatState } from "./chat";
import { canSend, toolCardState } from "./selectors";

const request: ApprovalRequest = {
  requestId: 1,
  toolCallId: "call_1",
  server: "files",
  tool: "write_file",
  arguments: { path: "notes.txt", content: "hello" },
  readOnlyClaim: false,
  destructiveClaim: true,
};

const call = { type: "toolCall" as const, id: "call_1", name: "files__write_file", arguments: request.arguments };

/** A run whose assistant asked for `call_1` and whose host now asks the user about it. */
function asked(): ChatState {
  const envelopes: Envelope[] = tagged(
    numbered([
      ...runStart("Write my notes"),
      event({ type: "message_start", message: assistantMessage([call], "toolUse") }),
      event({ type: "message_end", message: assistantMessage([call], "toolUse") }),
      event({ type: "tool_execution_start", toolCallId: "call_1", toolName: "files__write_file", args: request.arguments }),
      notice({ type: "approval_requested", ...request }),
    ]),
    "c-1",
    1,
  );
  return chatReducer({ ...initialChatState, conversationId: "c-1" }, { type: "envelopes", envelopes });
}

function then(state: ChatState, payloads: Parameters<typeof numbered>[0]): ChatState {
  const envelopes = tagged(numbered(payloads, state.lastSeq + 1), "c-1", 1);
  return chatReducer(state, { type: "envelopes", envelopes });
}

describe("an approval question", () => {
  it("puts its tool card in awaiting_approval with the request, and Send stays off", () => {
    const state = asked();

    expect(toolCardState(state, "call_1")).toBe("awaiting_approval");
    expect(state.approvals["call_1"]).toEqual({ request, status: "waiting" });
    expect(canSend(state)).toBe(false);
  });

  it("an answer on its way disables the question; the host's allowed lets the card run", () => {
    const answering = chatReducer(asked(), { type: "approval_answered", toolCallId: "call_1" });
    expect(answering.approvals["call_1"]?.status).toBe("answering");
    expect(toolCardState(answering, "call_1")).toBe("awaiting_approval");

    const allowed = then(answering, [
      notice({ type: "approval_resolved", requestId: 1, toolCallId: "call_1", outcome: "allowed" }),
    ]);
    expect(toolCardState(allowed, "call_1")).toBe("running");
  });

  it("a refused answer makes the question answerable again and says why in the banner", () => {
    const answering = chatReducer(asked(), { type: "approval_answered", toolCallId: "call_1" });

    const failed = chatReducer(answering, {
      type: "approval_answer_failed",
      toolCallId: "call_1",
      error: { kind: "invalid", code: "approval_not_pending", detail: "this question was already answered or withdrawn" },
    });

    expect(failed.approvals["call_1"]?.status).toBe("waiting");
    expect(failed.banner?.detail).toBe("this question was already answered or withdrawn");
  });

  it("withdrawn by Stop: the card says stopped, not run, also after the run settled", () => {
    const withdrawn = then(asked(), [
      notice({ type: "approval_resolved", requestId: 1, toolCallId: "call_1", outcome: "withdrawn" }),
      event({
        type: "tool_execution_end",
        toolCallId: "call_1",
        toolName: "files__write_file",
        result: { content: [{ type: "text", text: "Operation aborted" }], details: {} },
        isError: true,
      }),
      event({ type: "agent_end", messages: [] }),
      notice({ type: "idle" }),
    ]);

    expect(toolCardState(withdrawn, "call_1")).toBe("stopped");
    expect(canSend(withdrawn)).toBe(true);
  });

  it("an allowed call cancelled by Stop while it runs: the card says stopped; one that failed before says error", () => {
    const allowed = then(asked(), [
      notice({ type: "approval_resolved", requestId: 1, toolCallId: "call_1", outcome: "allowed" }),
    ]);
    const aborted = { content: [{ type: "text", text: "Operation aborted" }], details: {} };
    const end = event({ type: "tool_execution_end", toolCallId: "call_1", toolName: "files__write_file", result: aborted, isError: true });
    const settle = [event({ type: "agent_end", messages: [] }), notice({ type: "idle" })];

    const stopped = then(chatReducer(allowed, { type: "stop_requested" }), [end, ...settle]);
    expect(toolCardState(stopped, "call_1")).toBe("stopped");
    expect(canSend(stopped)).toBe(true);

    const failed = then(allowed, [end, ...settle]);
    expect(toolCardState(failed, "call_1")).toBe("error");
  });
});
