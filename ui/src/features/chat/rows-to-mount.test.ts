import { defaultRangeExtractor, type Range } from "@tanstack/react-virtual";
import { describe, expect, it } from "vitest";

import { rowsToMount } from "./rows-to-mount";

const inView = (startIndex: number, endIndex: number, count = 100): Range => ({
  startIndex,
  endIndex,
  overscan: 4,
  count,
});

describe("rowsToMount", () => {
  it("mounts the overscan beyond both edges of a view at rest, as the library does", () => {
    expect(rowsToMount(inView(10, 15), null)).toEqual(defaultRangeExtractor(inView(10, 15)));
    expect(rowsToMount(inView(10, 15), null)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  });

  it("keeps one row behind a view scrolling down and the overscan ahead of it", () => {
    expect(rowsToMount(inView(10, 15), "forward")).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  });

  it("keeps one row behind a view scrolling up and the overscan ahead of it", () => {
    expect(rowsToMount(inView(10, 15), "backward")).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
  });

  it("stays within the rows there are", () => {
    expect(rowsToMount(inView(0, 3, 5), "forward")).toEqual([0, 1, 2, 3, 4]);
    expect(rowsToMount(inView(1, 4, 5), "backward")).toEqual([0, 1, 2, 3, 4]);
    expect(rowsToMount(inView(0, 0, 1), null)).toEqual([0]);
  });
});
