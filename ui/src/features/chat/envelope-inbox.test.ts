import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { Envelope } from "../../ipc/wire";
import { envelopeInbox } from "./envelope-inbox";

function envelope(seq: number): Envelope {
  return { v: 1, seq, kind: "event", event: { type: "turn_start" } };
}

describe("envelopeInbox", () => {
  let frames: FrameRequestCallback[] = [];
  beforeEach(() => {
    vi.useFakeTimers();
    frames = [];
    vi.stubGlobal("requestAnimationFrame", (callback: FrameRequestCallback) => frames.push(callback));
    vi.stubGlobal("cancelAnimationFrame", (id: number) => {
      frames[id - 1] = () => undefined;
    });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it("delivers what arrived before a frame together, in order", () => {
    const batches: number[][] = [];
    const push = envelopeInbox((envelopes) => batches.push(envelopes.map((item) => item.seq)));
    push(envelope(1));
    push(envelope(2));
    push(envelope(3));
    expect(batches).toEqual([]);
    frames.splice(0).forEach((frame) => frame(0));
    push(envelope(4));
    frames.splice(0).forEach((frame) => frame(16));
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it("still delivers when no frame comes (a hidden window)", () => {
    const batches: number[][] = [];
    const push = envelopeInbox((envelopes) => batches.push(envelopes.map((item) => item.seq)));
    push(envelope(1));
    push(envelope(2));
    vi.advanceTimersByTime(100);
    expect(batches).toEqual([[1, 2]]);
    frames.splice(0).forEach((frame) => frame(0));
    expect(batches).toEqual([[1, 2]]);
  });
});
