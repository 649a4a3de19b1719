// A stored run replayed through the live reducer: recorded envelopes of real runs (tool calls in parallel), the
// conversation before the run as the starting point, stepping, playing at a speed, and the end state.
import { describe, expect, it } from "vitest";

import type { LogLine } from "../../ipc/inspector";
import type { AgentMessage, Envelope } from "../../ipc/wire";
import toolsTwoParallel from "../../state/__fixtures__/tools_two_parallel.envelopes.json";
import { applyEnvelope } from "../../state/chat";
import { viewFromMessages } from "../../state/conversation-load";
import { delayBeforeNext, finishReplay, isFinished, MAX_REPLAY_GAP_MS, startReplay, stepReplay } from "./replay";

const envelopes = toolsTwoParallel as unknown as Envelope[];
const before: AgentMessage[] = [
  { role: "user", content: [{ type: "text", text: "Earlier question" }], timestamp: 1 },
];

function lines(gaps: (index: number) => number): LogLine[] {
  let at = 1_000;
  return envelopes.map((envelope, index) => {
    at += gaps(index);
    return { at, envelope };
  });
}

describe("replay", () => {
  it("starts from the conversation before the run and ends where the live window ended", () => {
    const replay = startReplay("c1", 7, { before, lines: lines(() => 10) });
    expect(replay.view.transcript.map((item) => item.kind)).toEqual(["user"]);

    const finished = finishReplay(replay);

    const live = envelopes.reduce(applyEnvelope, viewFromMessages("c1", before));
    expect(isFinished(finished)).toBe(true);
    expect(finished.view.transcript).toEqual(live.transcript);
    expect(finished.view.tools).toEqual(live.tools);
    expect(finished.view.runStatus).toBe("idle");
    expect(Object.keys(finished.view.tools)).toHaveLength(2);
  });

  it("steps one envelope at a time and stops playing at the end", () => {
    let replay = { ...startReplay("c1", 7, { before: [], lines: lines(() => 10) }), playing: true };
    const seen: number[] = [];
    while (!isFinished(replay)) {
      replay = stepReplay(replay);
      seen.push(replay.position);
    }
    expect(seen).toEqual(envelopes.map((_, index) => index + 1));
    expect(replay.playing).toBe(false);
    expect(stepReplay(replay)).toEqual(replay);
  });

  it("waits the logged gap divided by the speed, never longer than the cap", () => {
    const replay = startReplay("c1", 7, { before: [], lines: lines((index) => (index === 2 ? 60_000 : 40)) });
    expect(delayBeforeNext(replay)).toBe(0);
    const second = stepReplay(replay);
    expect(delayBeforeNext({ ...second, speed: 1 })).toBe(40);
    expect(delayBeforeNext({ ...second, speed: 10 })).toBe(4);
    const third = stepReplay(second);
    expect(delayBeforeNext({ ...third, speed: 1 })).toBe(MAX_REPLAY_GAP_MS);
    expect(delayBeforeNext({ ...third, speed: 100 })).toBe(MAX_REPLAY_GAP_MS / 100);
    expect(delayBeforeNext(finishReplay(replay))).toBeNull();
  });
});
