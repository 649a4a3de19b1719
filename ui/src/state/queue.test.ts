import { describe, expect, it } from "vitest";

import type { QueuedMessage } from "../ipc/bindings/QueuedMessage";
import { applyQueueNotice, chipActions, chipsOf, isQueueNotice, withAnswering, type QueuedChip } from "./queue";

const steer = (id: number, text: string): QueuedMessage => ({ id, kind: "steer", text, status: "waiting" });
const followUp = (id: number, text: string): QueuedMessage => ({ id, kind: "follow_up", text, status: "waiting" });

describe("the queue of one conversation", () => {
  it("shows queued messages in the order queued, once each, and drops consumed and cancelled ones", () => {
    let queue: readonly QueuedChip[] = [];
    queue = applyQueueNotice(queue, { type: "message_queued", message: followUp(2, "then sum them") });
    queue = applyQueueNotice(queue, { type: "message_queued", message: steer(1, "only PDFs") });
    queue = applyQueueNotice(queue, { type: "message_queued", message: steer(1, "only PDFs") });
    expect(queue.map((chip) => chip.id)).toEqual([1, 2]);

    const consumed = applyQueueNotice(queue, { type: "queued_message_consumed", id: 1 });
    expect(consumed).toEqual(chipsOf([followUp(2, "then sum them")]));
    expect(applyQueueNotice(consumed, { type: "queued_message_consumed", id: 1 })).toBe(consumed);
    expect(applyQueueNotice(consumed, { type: "queued_message_cancelled", id: 2 })).toEqual([]);
  });

  it("holds what a stopped run hands back, and a message queued again (steered in) waits again", () => {
    const answering = withAnswering(chipsOf([steer(1, "a"), followUp(2, "b"), steer(3, "c")]), 2, true);
    const held = applyQueueNotice(answering, { type: "queued_messages_held", ids: [1, 2] });
    expect(held.map((chip) => [chip.id, chip.status, chip.answering])).toEqual([
      [1, "held", false],
      [2, "held", false],
      [3, "waiting", false],
    ]);
    const steeredIn = applyQueueNotice(held, { type: "message_queued", message: { ...followUp(2, "b"), kind: "steer" } });
    expect(steeredIn.map((chip) => [chip.id, chip.kind, chip.status])).toEqual([
      [1, "steer", "held"],
      [2, "steer", "waiting"],
      [3, "steer", "waiting"],
    ]);
  });

  it("offers cancel for a waiting message during a run, steer or discard for a held one, send or discard between runs", () => {
    const [waiting] = chipsOf([steer(1, "a")]);
    const held: QueuedChip = { ...followUp(2, "b"), status: "held", answering: false };
    if (waiting === undefined) throw new Error("no chip");
    expect(chipActions(waiting, true)).toEqual(["cancel"]);
    expect(chipActions(held, true)).toEqual(["steer", "discard"]);
    expect(chipActions(waiting, false)).toEqual(["send", "discard"]);
    expect(chipActions(held, false)).toEqual(["send", "discard"]);
  });

  it("tells queue notices from the others", () => {
    expect(isQueueNotice({ type: "queued_messages_held", ids: [] })).toBe(true);
    expect(isQueueNotice({ type: "idle" })).toBe(false);
    expect(isQueueNotice({ type: "state", isStreaming: true, pendingToolCalls: [] })).toBe(false);
  });
});
