import { describe, expect, it } from "vitest";

import type { AssistantMessage, Envelope, MessageVersion, UserMessage } from "../ipc/wire";
import { appState, assistantMessage, event, notice, numbered, runEnd, update } from "./__fixtures__/builders";
import { chatReducer, type AssistantItem, type ChatAction, type ChatState } from "./chat";
import { viewFromAppState } from "./conversation-load";
import { answerMarkdown, matchVersions, shownItems } from "./versions";
import { windowReducer, type WindowState } from "./window";

const question = (text: string, timestamp: number): UserMessage => ({
  role: "user",
  content: [{ type: "text", text }],
  timestamp,
});
const answer = (text: string, timestamp: number, stopReason: AssistantMessage["stopReason"] = "stop") => ({
  ...assistantMessage([{ type: "text", text }], stopReason),
  timestamp,
});
const version = (seq: number, role: string, timestamp: number, at: number, of: number): MessageVersion => ({
  seq,
  role,
  timestamp,
  version: at,
  versions: of,
});

function reduce(state: ChatState, actions: readonly ChatAction[]): ChatState {
  return actions.reduce(chatReducer, state);
}

/** The envelopes of one run that answers `text` (the answer stamped `timestamp`), then the host's versions. */
function answeredRun(text: string, timestamp: number, versions: MessageVersion[], firstSeq: number, runId: number): Envelope[] {
  const message = answer(text, timestamp);
  return numbered(
    [
      event({ type: "agent_start" }),
      event({ type: "turn_start" }),
      event({ type: "message_start", message: { ...message, content: [] } }),
      update({ type: "text_delta", contentIndex: 0, delta: text }),
      event({ type: "message_end", message }),
      notice({ type: "versions", versions }),
      ...runEnd(),
    ],
    firstSeq,
  ).map((envelope) => ({ ...envelope, runId }));
}

const loaded = viewFromAppState({
  ...appState("c1", [question("Where is my kettle?", 10), answer("On the shelf.", 20)]),
  versions: [version(0, "user", 10, 1, 1), version(1, "assistant", 20, 1, 1)],
});

describe("versions in the conversation's state", () => {
  it("a loaded conversation names each message's store seq and version", () => {
    const [user, assistant] = loaded.transcript;
    expect(loaded.versions[user?.id ?? ""]).toEqual({ seq: 0, version: 1, versions: 1 });
    expect(loaded.versions[assistant?.id ?? ""]).toEqual({ seq: 1, version: 1, versions: 1 });
  });

  it("regenerate cuts the answer at once, and the new one arrives as version 2 of 2", () => {
    const assistantId = loaded.transcript[1]?.id ?? "";
    const cut = chatReducer(loaded, { type: "regenerate_submitted", assistantId });
    expect(cut.transcript.map((item) => item.kind)).toEqual(["user"]);
    expect(cut.submitting).toBe(true);

    const after = reduce(cut, [
      { type: "run_accepted", runId: 1 },
      {
        type: "envelopes",
        envelopes: answeredRun("Next to the kettle.", 30, [version(0, "user", 10, 1, 1), version(2, "assistant", 30, 2, 2)], 1, 1),
      },
    ]);
    const regenerated = after.transcript[1] as AssistantItem;
    expect(regenerated.blocks).toEqual([{ type: "text", text: "Next to the kettle.", done: true }]);
    expect(after.versions[regenerated.id]).toEqual({ seq: 2, version: 2, versions: 2 });
    expect(after.runStatus).toBe("idle");
    expect(after.beforeBranch).toBeNull();
  });

  it("a refused regenerate brings the cut answer back and shows the host's reason", () => {
    const assistantId = loaded.transcript[1]?.id ?? "";
    const refused = reduce(loaded, [
      { type: "regenerate_submitted", assistantId },
      { type: "command_failed", command: "regenerate", error: { kind: "busy", code: "run_active" } },
    ]);
    expect(refused.transcript).toEqual(loaded.transcript);
    expect(refused.submitting).toBe(false);
    expect(refused.banner).toEqual({ source: "command", kind: "busy", code: "run_active" });
  });

  it("a regenerate asked during a run changes nothing here but shows why the host refused it", () => {
    const running: ChatState = { ...loaded, runId: 3, lastRunId: 3, runStatus: "running" };
    const refused = chatReducer(running, {
      type: "command_failed",
      command: "regenerate",
      error: { kind: "busy", code: "run_active" },
    });
    expect(refused.transcript).toBe(running.transcript);
    expect(refused.runId).toBe(3);
    expect(refused.banner?.code).toBe("run_active");
  });

  it("edit replaces the question and what followed with the new text, pending until the host echoes it", () => {
    const userId = loaded.transcript[0]?.id ?? "";
    const edited = chatReducer(loaded, { type: "edit_submitted", userId, text: "  Where is the tea?  " });
    expect(edited.transcript).toHaveLength(1);
    expect(edited.transcript[0]).toMatchObject({ kind: "user", text: "Where is the tea?", delivery: "pending" });
    const echoed = chatReducer(edited, {
      type: "envelopes",
      envelopes: numbered([event({ type: "message_start", message: question("Where is the tea?", 40) })]),
    });
    expect(echoed.transcript[0]).toMatchObject({ delivery: "sent", timestamp: 40 });
    const versions = matchVersions(echoed.transcript, [version(3, "user", 40, 2, 2)]);
    expect(versions[echoed.transcript[0]?.id ?? ""]).toEqual({ seq: 3, version: 2, versions: 2 });
  });

  it("showing another version replaces the view and keeps the window's own counters", () => {
    const window: WindowState = {
      shownId: "c1",
      views: { c1: { ...loaded, lastSeq: 12, lastRunId: 2 } },
      appInfo: null,
      protocolError: null,
      listRevision: 0,
      snapshotQueues: {},
    };
    const replaced = windowReducer(window, {
      type: "conversation_replaced",
      appState: {
        ...appState("c1", [question("Where is my kettle?", 10), answer("Behind the tea.", 25)]),
        versions: [version(0, "user", 10, 1, 1), version(4, "assistant", 25, 1, 2)],
      },
    });
    const view = replaced.views["c1"];
    expect(view?.lastSeq).toBe(12);
    expect(view?.lastRunId).toBe(2);
    expect(view?.versions[view.transcript[1]?.id ?? ""]).toEqual({ seq: 4, version: 1, versions: 2 });
  });
});

describe("matching versions to items", () => {
  it("skips items the host never confirmed and versions no item has", () => {
    const failed = { kind: "user" as const, id: "u99", text: "lost", imageCount: 0, delivery: "failed" as const };
    const withLoaded: ChatState = { ...loaded, transcript: [failed, ...loaded.transcript] };
    const matched = matchVersions(withLoaded.transcript, [
      version(7, "assistant", 99, 1, 1),
      version(0, "user", 10, 1, 1),
      version(1, "assistant", 20, 1, 1),
    ]);
    expect(Object.values(matched).map((item) => item.seq)).toEqual([0, 1]);
    expect(matched["u99"]).toBeUndefined();
  });
});

describe("an answer cut off by the length limit", () => {
  const cutOff = viewFromAppState(appState("c2", [question("Count", 1), answer("one, two, th", 2, "length")]));

  it("is marked truncated, never done", () => {
    expect((cutOff.transcript[1] as AssistantItem).status).toBe("truncated");
  });

  it("and its continuation are shown as one answer, joined at the cut", () => {
    const continued = reduce(cutOff, [
      { type: "continue_answer_submitted" },
      {
        type: "envelopes",
        envelopes: numbered([
          event({ type: "agent_start" }),
          event({ type: "message_start", message: { role: "continuation", timestamp: 3 } }),
          event({ type: "message_end", message: { role: "continuation", timestamp: 3 } }),
          event({ type: "message_start", message: { ...answer("", 4), content: [] } }),
          update({ type: "text_delta", contentIndex: 0, delta: "ree, four." }),
          event({ type: "message_end", message: answer("ree, four.", 4) }),
          ...runEnd(),
        ]),
      },
    ]);
    const shown = shownItems(continued.transcript);
    expect(shown).toHaveLength(2);
    const joined = shown[1]?.item as AssistantItem;
    expect(joined.status).toBe("done");
    expect(joined.blocks).toEqual([{ type: "text", text: "one, two, three, four.", done: true }]);
    expect(answerMarkdown(joined)).toBe("one, two, three, four.");
    expect(shown[1]?.partIds).toEqual(continued.transcript.slice(1).map((item) => item.id));
  });

  it("comes back as one answer after a restart", () => {
    const reopened = viewFromAppState(
      appState("c2", [
        question("Count", 1),
        answer("one, two, th", 2, "length"),
        { role: "continuation", timestamp: 3 },
        answer("ree, four.", 4),
      ]),
    );
    const shown = shownItems(reopened.transcript);
    expect(shown.map((entry) => entry.item.kind)).toEqual(["user", "assistant"]);
    expect(answerMarkdown(shown[1]?.item as AssistantItem)).toBe("one, two, three, four.");
  });
});
