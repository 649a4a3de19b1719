// A long conversation's rows, of which only those near the viewport are mounted (@tanstack/react-virtual). Each
// mounted row is measured when it mounts and whenever it changes size (the library's ResizeObserver), the others
// are placed by their measured or estimated heights. The mounted rows stay in the document's flow, inside one
// element whose padding stands in for the rows above and below them: a row that grows pushes the rows after it
// as in the full list, and the transcript's own height follows at once (what useStickToBottom observes).
//
// While the view seeks (./scroll-seek: a drag of the scrollbar, faster than a row could be seen), rows that come into
// view are mounted as placeholders of their measured or estimated height; they are rendered once it slows down or
// rests. Rows already shown, and the turn in progress, are always rendered.
//
// Who moves the scroll position: while the view sticks to the bottom, useStickToBottom alone (any growth keeps
// the bottom in view); once the user scrolled up, the library alone, and only to keep what is in view in place
// when a row above it changes size (its first measurement replacing the estimate, or a re-render above).
import { useVirtualizer, type VirtualItem, type Virtualizer } from "@tanstack/react-virtual";
import {
  useCallback,
  useContext,
  useLayoutEffect,
  useMemo,
  useReducer,
  useRef,
  useState,
  type Key,
  type ReactNode,
  type RefObject,
} from "react";

import { RenderBacklogContext } from "../../markdown/render-backlog";
import type { ShownItem } from "../../state/versions";
import { estimateRowHeight } from "./row-height-estimate";
import { rowsToMount } from "./rows-to-mount";
import { ScrollSeek } from "./scroll-seek";
import type { BottomStick } from "./useStickToBottom";

/** `.transcript`'s top padding in styles.css: where the first row starts in the scroller. */
const LIST_TOP_PX = 24;
/** The gap between the transcript's rows in styles.css (`.transcript`, `.transcript-window`). */
const ROW_GAP_PX = 22;
/** Rows mounted beyond each edge of the viewport (./rows-to-mount: beyond the one ahead only, while scrolling). */
const OVERSCAN_ROWS = 4;

interface WindowedRowsProps {
  rows: readonly ShownItem[];
  /** The row's React key, also the key its measured height is kept under. */
  rowKey: (row: ShownItem) => string;
  renderRow: (row: ShownItem) => ReactNode;
  /**
   * The first row of the turn in progress (after the last question). Only from it on does a row's rendering count
   * in the window's render backlog (what the status line and Send wait for): the rows before it are mounted and
   * unmounted by scrolling, and rendering them again says nothing about a run.
   */
  liveFrom: number;
  scroller: RefObject<HTMLElement | null>;
  stick: BottomStick;
}

/** Mounted once per conversation (keyed by it), so it opens at the conversation's end with nothing measured. */
export function WindowedRows({ rows, rowKey, renderRow, liveFrom, scroller, stick }: WindowedRowsProps) {
  const backlog = useContext(RenderBacklogContext);
  const keys = useStableKeys(rows, rowKey);
  const getItemKey = useCallback((index: number) => keys[index] ?? index, [keys]);
  // The library asks again for every row after one that was measured: guessed once per transcript.
  const estimates = useMemo(() => rows.map(estimateRowHeight), [rows]);
  const self = useRef<Virtualizer<HTMLElement, HTMLDivElement> | null>(null);
  const virtualizer = useVirtualizer<HTMLElement, HTMLDivElement>({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: (index) => estimates[index] ?? estimateRowHeight(undefined),
    getItemKey,
    scrollMargin: LIST_TOP_PX,
    gap: ROW_GAP_PX,
    overscan: OVERSCAN_ROWS,
    // A new function at each render, on purpose: the library works the mounted rows out again when it changes, so
    // the render that follows the end of a scroll mounts the rows behind the view again.
    rangeExtractor: (range) => rowsToMount(range, self.current?.scrollDirection ?? null),
    initialRect: { width: scroller.current?.clientWidth ?? 0, height: scroller.current?.clientHeight ?? 0 },
    // The first rows rendered are the last ones (a conversation opens at its end); the scroller is put there as
    // the library attaches to it.
    initialOffset: () => {
      const list = self.current;
      const height = scroller.current?.clientHeight ?? 0;
      return list === null ? 0 : Math.max(0, list.getTotalSize() + LIST_TOP_PX - height);
    },
  });
  self.current = virtualizer;
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = (item, _delta, instance) =>
    !stick.isStuck() && keepsViewInPlace(item, instance);
  // A render can make the list shorter (rows measured smaller than estimated, rows unmounted): the browser then
  // moves the view up, which must not read as the user scrolling up.
  useLayoutEffect(() => stick.holdBottom());
  const seeking = useSeeking(scroller, stick, virtualizer.isScrolling);
  const rendered = useRef<ReadonlySet<Key>>(new Set());
  const renderedNow = new Set<Key>();
  useLayoutEffect(() => {
    rendered.current = renderedNow;
  });

  const items = virtualizer.getVirtualItems();
  const first = items[0];
  const last = items[items.length - 1];
  const before = first === undefined ? 0 : first.start - LIST_TOP_PX;
  const after = last === undefined ? 0 : virtualizer.getTotalSize() - (last.end - LIST_TOP_PX);
  return (
    <div className="transcript-window" style={{ paddingTop: before, paddingBottom: after }}>
      {items.map((virtual) => {
        const row = rows[virtual.index];
        if (row === undefined) return null;
        if (seeking && virtual.index < liveFrom && !rendered.current.has(virtual.key)) {
          return (
            <div
              key={virtual.key}
              className="transcript-row"
              data-index={virtual.index}
              data-placeholder=""
              aria-hidden="true"
              style={{ height: virtual.size }}
            >
              <div className={`row-placeholder ${row.item.kind}`} />
            </div>
          );
        }
        renderedNow.add(virtual.key);
        return (
          <div key={virtual.key} className="transcript-row" data-index={virtual.index} ref={virtualizer.measureElement}>
            <RenderBacklogContext.Provider value={virtual.index < liveFrom ? null : backlog}>
              {renderRow(row)}
            </RenderBacklogContext.Provider>
          </div>
        );
      })}
    </div>
  );
}

/**
 * Whether the view seeks (see ./scroll-seek), from the scroller's scroll events; `scrolling` is the library's (false
 * once no scroll came for a while, which renders the rows). Renders again when seeking ends while the view moves.
 */
function useSeeking(scroller: RefObject<HTMLElement | null>, stick: BottomStick, scrolling: boolean): boolean {
  const [seek] = useState(() => new ScrollSeek());
  const [, slowedDown] = useReducer((count: number) => count + 1, 0);
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element === null) return;
    // On the document, in its capture phase: before the library's own listener on the element re-renders the rows.
    const onScroll = (event: Event) => {
      if (event.target !== element) return;
      const was = seek.isSeeking();
      // A view that follows the bottom moves with what it shows (useStickToBottom, which reads this event after).
      if (stick.isStuck()) seek.reset();
      else seek.observe(element.scrollTop, event.timeStamp, element.clientHeight);
      if (was && !seek.isSeeking()) slowedDown();
    };
    const view = element.ownerDocument;
    view.addEventListener("scroll", onScroll, { capture: true, passive: true });
    return () => view.removeEventListener("scroll", onScroll, { capture: true });
  }, [scroller, stick, seek]);
  if (!scrolling) seek.reset();
  return seek.isSeeking();
}

/**
 * The library's own rule, for when the user scrolled up: a row measured for the first time moves the view by its
 * change if it starts above the viewport's top; a row measured again only if it lies wholly above it (a row the
 * top cuts through, such as a streaming answer, grows below what is read) and the user is not scrolling up.
 */
function keepsViewInPlace(item: VirtualItem, instance: Virtualizer<HTMLElement, HTMLDivElement>): boolean {
  const offset = instance.scrollOffset ?? 0;
  if (!instance.itemSizeCache.has(item.key)) return item.start < offset;
  return item.end <= offset && instance.scrollDirection !== "backward";
}

/**
 * The rows' keys, the same array as long as they are the same keys: the library re-places every row when the key
 * function changes, which a streaming answer (a new transcript every frame) must not cause. Worked out again only
 * for new rows (not on each scroll); the key is the conversation's, which this component is mounted for.
 */
function useStableKeys(rows: readonly ShownItem[], rowKey: (row: ShownItem) => string): readonly string[] {
  const kept = useRef<{ rows: readonly ShownItem[]; keys: readonly string[] } | null>(null);
  const previous = kept.current;
  if (previous !== null && previous.rows === rows) return previous.keys;
  const keys = rows.map(rowKey);
  const same = previous !== null && keys.length === previous.keys.length && keys.every((key, index) => key === previous.keys[index]);
  kept.current = { rows, keys: same ? previous.keys : keys };
  return kept.current.keys;
}
