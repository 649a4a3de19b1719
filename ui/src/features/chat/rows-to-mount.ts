// Which rows of a long conversation are mounted: those in view and a few beyond each edge, so a scroll reveals
// rows already rendered and measured. While the view scrolls, only one stays beyond the edge it moves away from:
// at speed every frame brings rows that were not mounted before, and the ones it leaves behind are never seen.
import type { Range, Virtualizer } from "@tanstack/react-virtual";

/** The library's `scrollDirection` (null while the view rests), which it does not export as a type. */
export type ScrollDirection = Virtualizer<Element, Element>["scrollDirection"];

/** The indexes to mount for the library's `range` (what is in view and its overscan), in order. */
export function rowsToMount(range: Range, direction: ScrollDirection): number[] {
  const before = direction === "forward" ? Math.min(1, range.overscan) : range.overscan;
  const after = direction === "backward" ? Math.min(1, range.overscan) : range.overscan;
  const first = Math.max(0, range.startIndex - before);
  const last = Math.min(range.count - 1, range.endIndex + after);
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, offset) => first + offset);
}
