import { describe, expect, it } from "vitest";

import type { LogLine } from "../../ipc/inspector";
import type { Envelope } from "../../ipc/wire";
import { sentMessages, SENT_TEXT_CHARS } from "./sent-messages";

let seq = 0;
const line = (envelope: Record<string, unknown>): LogLine => ({ at: 0, envelope: { v: 1, seq: ++seq, ...envelope } as Envelope });
const request = (messageCount: number) =>
  line({ kind: "notice", notice: { type: "turn_request", model: "m", thinkingLevel: "off", messageCount, tools: [], contextChars: 1 } });
const ended = (message: object) => line({ kind: "event", event: { type: "message_end", message } as never });

describe("what a turn sent", () => {
  it("is the conversation before the run and the messages that ended before the turn's request", () => {
    const prompt = { role: "user", content: [{ type: "text", text: "Which PDFs?" }] };
    const call = { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "list_download_files", arguments: { extensions: ["pdf"] } }] };
    const result = { role: "toolResult", toolCallId: "c1", toolName: "list_download_files", content: [{ type: "text", text: "a.pdf" }], isError: false };
    const replay = {
      before: [{ role: "user", content: "earlier", timestamp: 1 }] as never[],
      lines: [ended(prompt), request(2), ended(call), ended(result), request(4), ended({ role: "assistant", content: [] })],
    };

    expect(sentMessages(replay, 1)).toEqual([
      { role: "user", text: "earlier" },
      { role: "user", text: "Which PDFs?" },
    ]);
    expect(sentMessages(replay, 2)?.map((message) => message.role)).toEqual(["user", "user", "assistant", "toolResult"]);
    expect(sentMessages(replay, 2)?.[2]?.text).toBe('list_download_files({"extensions":["pdf"]})');
    expect(sentMessages(replay, 3)).toBeNull();
  });

  it("shortens a long text", () => {
    const replay = { before: [{ role: "user", content: "x".repeat(SENT_TEXT_CHARS + 50) }] as never[], lines: [request(1)] };
    expect(sentMessages(replay, 1)?.[0]?.text).toHaveLength(SENT_TEXT_CHARS + 1);
  });
});
