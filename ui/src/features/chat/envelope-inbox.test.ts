import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { Envelope } from "../../ipc/wire";
import { MIN_INTERVAL_MS, envelopeInbox } from "./envelope-inbox";

function envelope(seq: number): Envelope {
  return { v: 1, seq, kind: "event", event: { type: "turn_start" } };
}

/** An inbox that notes the sequence numbers of each delivery. */
function inboxOfBatches() {
  const batches: number[][] = [];
  const push = envelopeInbox((envelopes) => batches.push(envelopes.map((item) => item.seq)));
  return { batches, push };
}

/** Lets queued microtasks run (the end of the task an envelope came in). */
const endOfTask = () => Promise.resolve();

describe("envelopeInbox", () => {
  let frames = new Map<number, FrameRequestCallback>();
  let nextFrame = 1;
  const runFrames = (time: number) => {
    const due = [...frames.values()];
    frames = new Map();
    due.forEach((frame) => frame(time));
  };
  beforeEach(() => {
    vi.useFakeTimers();
    frames = new Map();
    vi.stubGlobal("requestAnimationFrame", (callback: FrameRequestCallback) => {
      frames.set(nextFrame, callback);
      nextFrame += 1;
      return nextFrame - 1;
    });
    vi.stubGlobal("cancelAnimationFrame", (id: number) => frames.delete(id));
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it("delivers an envelope that comes to an idle inbox at the end of its task, without waiting for a frame", async () => {
    const { batches, push } = inboxOfBatches();
    push(envelope(1));
    push(envelope(2));
    expect(batches).toEqual([]);
    await endOfTask();
    expect(batches).toEqual([[1, 2]]);
  });

  it("holds what comes within the interval after a delivery and delivers it together at the next frame", async () => {
    const { batches, push } = inboxOfBatches();
    push(envelope(1));
    await endOfTask();
    push(envelope(2));
    push(envelope(3));
    await endOfTask();
    expect(batches).toEqual([[1]]);
    vi.advanceTimersByTime(5);
    runFrames(5);
    expect(batches).toEqual([[1], [2, 3]]);
    push(envelope(4));
    await endOfTask();
    expect(batches).toEqual([[1], [2, 3]]);
    vi.advanceTimersByTime(5);
    runFrames(10);
    expect(batches).toEqual([[1], [2, 3], [4]]);
  });

  it("delivers what is held when the interval is over, if no frame came first (slow frames, a hidden window)", async () => {
    const { batches, push } = inboxOfBatches();
    push(envelope(1));
    await endOfTask();
    vi.advanceTimersByTime(MIN_INTERVAL_MS - 6);
    push(envelope(2));
    push(envelope(3));
    vi.advanceTimersByTime(5);
    expect(batches).toEqual([[1]]);
    vi.advanceTimersByTime(1);
    expect(batches).toEqual([[1], [2, 3]]);
    runFrames(0);
    expect(batches).toEqual([[1], [2, 3]]);
    expect(frames.size).toBe(0);
  });

  it("delivers at the end of the task again once the interval since the last delivery is over", async () => {
    const { batches, push } = inboxOfBatches();
    push(envelope(1));
    await endOfTask();
    vi.advanceTimersByTime(MIN_INTERVAL_MS);
    push(envelope(2));
    await endOfTask();
    expect(batches).toEqual([[1], [2]]);
    expect(frames.size).toBe(0);
  });

  it("an envelope pushed while a delivery runs waits for the next one", async () => {
    const batches: number[][] = [];
    let push: (envelope: Envelope) => void = () => undefined;
    push = envelopeInbox((envelopes) => {
      batches.push(envelopes.map((item) => item.seq));
      if (envelopes[0]?.seq === 1) push(envelope(2));
    });
    push(envelope(1));
    await endOfTask();
    await endOfTask();
    expect(batches).toEqual([[1]]);
    runFrames(16);
    expect(batches).toEqual([[1], [2]]);
  });
});
