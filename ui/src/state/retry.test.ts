import { describe, expect, it } from "vitest";

import { assistantMessage, event, notice, numbered, runEnd, runStart } from "./__fixtures__/builders";
import { applyEnvelope, initialChatState, type ChatState } from "./chat";

const retry = notice({
  type: "model_retry",
  attempt: 2,
  maxRetries: 3,
  delayMs: 1000,
  cause: "status",
  status: 429,
});

function states(payloads: Parameters<typeof numbered>[0]): ChatState[] {
  const result: ChatState[] = [];
  let state = initialChatState;
  for (const envelope of numbered(payloads)) {
    state = applyEnvelope(state, envelope);
    result.push(state);
  }
  return result;
}

describe("a retried model request", () => {
  it("is shown from its notice until the answer starts, and what a turn sent changes nothing shown", () => {
    const answer = assistantMessage([{ type: "text", text: "hi" }], "stop");
    const seen = states([
      ...runStart("hello"),
      notice({ type: "turn_request", model: "m", thinkingLevel: "off", messageCount: 1, tools: [], contextChars: 40 }),
      retry,
      event({ type: "message_start", message: answer }),
      event({ type: "message_end", message: answer }),
      ...runEnd(),
    ]);

    const afterRequest = seen[5];
    const afterRetry = seen[6];
    const afterStart = seen[7];
    expect(afterRequest?.transcript).toEqual(seen[4]?.transcript);
    expect(afterRetry?.retry).toEqual({ attempt: 2, maxRetries: 3, delayMs: 1000, cause: "status", status: 429 });
    expect(afterStart?.retry).toBeNull();
  });

  it("ends with the run when no answer came", () => {
    const seen = states([...runStart("hello"), retry, ...runEnd("Request was aborted")]);
    expect(seen[5]?.retry).not.toBeNull();
    expect(seen[seen.length - 1]?.retry).toBeNull();
  });
});
