import { describe, expect, it } from "vitest";

import { chatReducer, initialChatState } from "./chat";
import { viewFromAppState } from "./conversation-load";
import { parseFileBlock, userContent } from "./user-attachments";

// The same blocks desktop-host's attachment tests make (file_block), so both sides read one contract.
const NOTES = '<attached-file name="notes.md">\n# Plan\n\n- one\n</attached-file>';
const HOSTILE =
  '<attached-file name="a&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;amp;.txt">\ntext\n</attached-file>';

describe("user message attachments", () => {
  it("reads a file block back to its name and text", () => {
    expect(parseFileBlock(NOTES)).toEqual({ name: "notes.md", text: "# Plan\n\n- one" });
    expect(parseFileBlock(HOSTILE)).toEqual({ name: 'a"><script>alert(1)</script>&amp;.txt', text: "text" });
    expect(parseFileBlock('<attached-file name="x.txt">\nbefore\n</attached-file>\nafter\n</attached-file>')).toEqual({
      name: "x.txt",
      text: "before\n</attached-file>\nafter",
    });
  });

  it("takes any other text as the message's own", () => {
    for (const text of [
      "hello",
      '<attached-file name="x">',
      '<attached-file name="x">\nno end',
      '<attached-file name="x" extra>\nbody\n</attached-file>',
      ' <attached-file name="x">\nbody\n</attached-file>',
      '<attached-file name="a"b">\nbody\n</attached-file>',
    ]) {
      expect(parseFileBlock(text)).toBeNull();
    }
  });

  it("splits a stored message into its text, files and images, and drops images of other types", () => {
    const content = userContent({
      role: "user",
      content: [
        { type: "text", text: "what is due?" },
        { type: "text", text: NOTES },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "image", data: "PHN2Zz4=", mimeType: "image/svg+xml" },
      ],
    });
    expect(content).toEqual({
      text: "what is due?",
      attachments: [
        { kind: "file", name: "notes.md" },
        { kind: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
      ],
    });
  });

  it("keeps the attachments of a sent message and of a stored one", () => {
    const attachments = [{ kind: "file" as const, name: "plan.pdf" }];
    const submitted = chatReducer(initialChatState, { type: "prompt_submitted", text: "", imageCount: 0, attachments });
    expect(submitted.transcript).toEqual([
      { kind: "user", id: "u1", text: "", imageCount: 0, attachments, delivery: "pending" },
    ]);
    const stored = viewFromAppState({
      conversationId: "c1",
      isStreaming: false,
      pendingToolCalls: [],
      model: { provider: "test", id: "m", api: "openai-completions", contextWindow: 1000, imageInput: true, priced: false },
      thinkingLevel: "off",
      messages: [{ role: "user", content: [{ type: "text", text: NOTES }] }],
    });
    expect(stored.transcript).toEqual([
      { kind: "user", id: "u1", text: "", imageCount: 0, attachments: [{ kind: "file", name: "notes.md" }], delivery: "sent" },
    ]);
  });
});
