import { describe, expect, it } from "vitest";

import { ScrollSeek } from "./scroll-seek";

const FRAME = 1000 / 60;
const VIEW = 600;

/** Feeds `seek` one scroll event a frame, `step` px each, from `top` at `time`; what each returned. */
function scroll(seek: ScrollSeek, frames: number, step: number, from = { top: 0, time: 0 }): boolean[] {
  return Array.from({ length: frames }, (_, frame) => seek.observe(from.top + step * (frame + 1), from.time + FRAME * (frame + 1), VIEW));
}

describe("ScrollSeek", () => {
  it("seeks from the second fast event of a movement on, a screenful or more a frame", () => {
    const seek = new ScrollSeek();
    expect(scroll(seek, 5, 1_000)).toEqual([false, false, true, true, true]);
    expect(seek.isSeeking()).toBe(true);
  });

  it("does not seek at the speed of a wheel or a held key", () => {
    const seek = new ScrollSeek();
    expect(scroll(seek, 30, 100)).not.toContain(true);
    expect(scroll(new ScrollSeek(), 30, -400)).not.toContain(true);
  });

  it("seeks upwards as downwards", () => {
    const seek = new ScrollSeek();
    expect(scroll(seek, 4, -1_000, { top: 100_000, time: 0 })).toEqual([false, false, true, true]);
  });

  it("a single jump is no movement: one event, however far, after a pause", () => {
    const seek = new ScrollSeek();
    expect(seek.observe(0, 0, VIEW)).toBe(false);
    expect(seek.observe(500_000, 1_000, VIEW)).toBe(false);
    expect(seek.observe(0, 1_500, VIEW)).toBe(false);
    // Two jumps within a frame of each other are a movement: the second alone does not start seeking.
    expect(seek.observe(200_000, 1_500 + FRAME, VIEW)).toBe(false);
  });

  it("stops seeking below half the speed it started at, and not above it", () => {
    const seek = new ScrollSeek();
    scroll(seek, 3, 1_000);
    expect(scroll(seek, 8, 300, { top: 3_000, time: 3 * FRAME })).not.toContain(false);
    const slower = scroll(seek, 8, 200, { top: 5_400, time: 11 * FRAME });
    expect(slower.at(-1)).toBe(false);
    // Fast again, it seeks again, from its second fast event.
    expect(scroll(seek, 3, 1_000, { top: 7_000, time: 19 * FRAME })).toEqual([false, true, true]);
  });

  it("a pause between events ends the movement, and so does rest", () => {
    const seek = new ScrollSeek();
    scroll(seek, 3, 1_000);
    expect(seek.observe(10_000, 3 * FRAME + 150, VIEW)).toBe(false);
    scroll(seek, 3, 1_000, { top: 10_000, time: 3 * FRAME + 150 });
    expect(seek.isSeeking()).toBe(true);
    seek.reset();
    expect(seek.isSeeking()).toBe(false);
  });

  it("the app's own small corrections between a drag's steps do not end it", () => {
    const seek = new ScrollSeek();
    const tops = [1_000, 1_064, 2_064, 3_064, 3_043, 4_043, 4_056, 5_056, 6_056, 6_041];
    expect(tops.map((top, index) => seek.observe(top, FRAME * (index + 1), VIEW))).toEqual([
      false, false, false, true, true, true, true, true, true, true,
    ]);
  });

  it("never seeks in a view of no height", () => {
    const seek = new ScrollSeek();
    expect(Array.from({ length: 5 }, (_, frame) => seek.observe(1_000 * frame, FRAME * frame, 0))).not.toContain(true);
  });
});
