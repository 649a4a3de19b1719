// What the live region announces: an answer's finished text once, when its run is over and the text is on
// screen; nothing for deltas, for a tool call without text, or for an answer loaded by switching conversations.
import { describe, expect, it } from "vitest";

import type { AssistantItem, ChatState, TranscriptItem } from "../../state/chat";
import {
  ANNOUNCED_CHARS,
  NO_WATCH,
  announcedText,
  watchAnswers,
  type AnswerWatch,
} from "./answer-announcement";

/** A state as the watch reads it; the run id is 1 unless given (a run happened). */
type Watched = Pick<ChatState, "conversationId" | "runStatus" | "transcript" | "streamingAssistantId"> & {
  lastRunId?: number;
};

const assistant = (id: string, text: string, status: AssistantItem["status"] = "done"): AssistantItem => ({
  kind: "assistant",
  id,
  blocks: text === "" ? [] : [{ type: "text", text, done: status !== "streaming" }],
  status,
  retried: false,
});
const user = (id: string, text: string): TranscriptItem => ({ kind: "user", id, text, imageCount: 0, delivery: "sent" });

/** Feeds the states in order and collects what was announced. */
function announcements(states: readonly [Watched, boolean][], start: AnswerWatch = NO_WATCH): string[] {
  let watch = start;
  const said: string[] = [];
  for (const [state, caughtUp] of states) {
    const next = watchAnswers(watch, { lastRunId: 1, ...state }, caughtUp);
    watch = next.watch;
    if (next.announce !== null) said.push(`${next.announce.itemId}: ${next.announce.source}`);
  }
  return said;
}

describe("announcing finished answers", () => {
  it("announces the final text once, after the run is idle and the text is on screen", () => {
    const question = user("u1", "Which PDFs?");
    const said = announcements([
      [{ conversationId: "a", runStatus: "running", streamingAssistantId: "a1", transcript: [question, assistant("a1", "Two", "streaming")] }, true],
      [{ conversationId: "a", runStatus: "running", streamingAssistantId: "a1", transcript: [question, assistant("a1", "Two PDFs", "streaming")] }, true],
      [{ conversationId: "a", runStatus: "settling", streamingAssistantId: null, transcript: [question, assistant("a1", "Two PDFs: a and b.")] }, true],
      [{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: [question, assistant("a1", "Two PDFs: a and b.")] }, false],
      [{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: [question, assistant("a1", "Two PDFs: a and b.")] }, true],
      [{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: [question, assistant("a1", "Two PDFs: a and b.")] }, true],
    ]);
    expect(said).toEqual(["a1: Two PDFs: a and b."]);
  });

  it("announces the answer after the tool calls, not the tool call's empty message", () => {
    const said = announcements([
      [{ conversationId: "a", runStatus: "running", streamingAssistantId: "a1", transcript: [assistant("a1", "", "streaming")] }, true],
      [{ conversationId: "a", runStatus: "running", streamingAssistantId: "a2", transcript: [assistant("a1", ""), assistant("a2", "Done", "streaming")] }, true],
      [{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: [assistant("a1", ""), assistant("a2", "Done.")] }, true],
    ]);
    expect(said).toEqual(["a2: Done."]);
  });

  it("says nothing for an answer shown by opening or switching to a conversation", () => {
    const watching: AnswerWatch = { ...NO_WATCH, conversationId: "a", streamed: ["a1"] };
    const said = announcements(
      [[{ conversationId: "b", runStatus: "idle", streamingAssistantId: null, transcript: [assistant("a1", "Old answer of b")] }, true]],
      watching,
    );
    expect(said).toEqual([]);
    expect(announcements([[{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: [assistant("a1", "Loaded")] }, true]])).toEqual([]);
  });

  it("announces an answer whose whole run came in one delivery, never seen streaming", () => {
    const question = user("u1", "Hi?");
    const said = announcements([
      [{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: [], lastRunId: 0 }, true],
      [{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: [question], lastRunId: 0 }, true],
      [{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: [question, assistant("a2", "Hello.")] }, false],
      [{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: [question, assistant("a2", "Hello.")] }, true],
      [{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: [question, assistant("a2", "Hello.")] }, true],
    ]);
    expect(said).toEqual(["a2: Hello."]);
  });

  it("says nothing for a run that appended no answer, not even the answer before it", () => {
    const history = [user("u1", "Hi?"), assistant("a2", "Hello.")];
    const said = announcements([
      [{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: history }, true],
      [{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: [...history, user("u3", "And?"), assistant("a4", "")], lastRunId: 2 }, true],
    ]);
    expect(said).toEqual([]);
  });

  it("says nothing when the transcript was replaced rather than appended to", () => {
    const said = announcements([
      [{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: [user("u1", "Hi?")] }, true],
      [{ conversationId: "a", runStatus: "idle", streamingAssistantId: null, transcript: [user("u9", "Other"), assistant("a10", "Other answer")], lastRunId: 2 }, true],
    ]);
    expect(said).toEqual([]);
  });
});

describe("the announced text of a long answer", () => {
  it("is the whole text when it fits", () => {
    const text = "word ".repeat(ANNOUNCED_CHARS / 5 - 1) + "end.";
    expect(text.length).toBeLessThanOrEqual(ANNOUNCED_CHARS);
    expect(announcedText(text)).toBe(text);
  });

  it("is cut at the last word boundary that fits, marked with an ellipsis", () => {
    const text = "alpha beta gamma delta ".repeat(10_000);
    const announced = announcedText(text);
    expect(announced.length).toBeLessThanOrEqual(ANNOUNCED_CHARS);
    expect(announced.length).toBeGreaterThan(ANNOUNCED_CHARS - 10);
    expect(announced.endsWith("…")).toBe(true);
    const kept = announced.slice(0, -1);
    expect(text.startsWith(kept)).toBe(true);
    expect(["alpha", "beta", "gamma", "delta"]).toContain(kept.split(" ").at(-1));
  });

  it("cuts text without spaces (Chinese) at the limit", () => {
    const text = "会议纪要天气预报".repeat(1_000);
    const announced = announcedText(text);
    expect(announced).toBe(`${text.slice(0, ANNOUNCED_CHARS - 1)}…`);
  });

  it("never splits a surrogate pair", () => {
    const text = `${"x".repeat(ANNOUNCED_CHARS - 2)}${"😀".repeat(10)}`;
    const announced = announcedText(text);
    expect(announced).toBe(`${"x".repeat(ANNOUNCED_CHARS - 2)}…`);
    expect(announced.length).toBeLessThanOrEqual(ANNOUNCED_CHARS);
  });
});
