// A conversation's rows, all of them in the document, mounted from its end: the rows that fill the view in the
// first frame, the older ones above them a slice at a time, each slice a task of its own. Committing a hundred
// rows at once (their DOM, their first layout, their effects) held the page's thread for 130–180 ms after a
// conversation opened, and whatever the user did meanwhile (a search typed as the window starts, a click) waited
// for all of it; now it waits for one slice. Within a few frames every row is there, for Tab, a screen reader and
// the page's own search.
//
// What is in view stays in view: each slice tells useStickToBottom how far it moved the rows below it, which puts a
// view that follows the bottom back there and moves one the user scrolled up with what it shows.
import { Fragment, useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from "react";

import type { ShownItem } from "../../state/versions";
import type { BottomStick } from "./useStickToBottom";

/** Rows mounted by one slice: some nine slices for a conversation of a hundred messages. */
export const ROWS_PER_SLICE = 12;

interface RowsFromEndProps {
  rows: readonly ShownItem[];
  rowKey: (row: ShownItem) => string;
  renderRow: (row: ShownItem) => ReactNode;
  scroller: RefObject<HTMLElement | null>;
  /** The element the rows are the children of. */
  content: RefObject<HTMLElement | null>;
  stick: BottomStick;
}

/** Mounted once per conversation (keyed by it), so each conversation opens at its end. */
export function RowsFromEnd({ rows, rowKey, renderRow, scroller, content, stick }: RowsFromEndProps) {
  const from = useMountedFrom(rows.length, scroller, content, stick);
  return rows.slice(from).map((row) => <Fragment key={rowKey(row)}>{renderRow(row)}</Fragment>);
}

/** An element and where it was in the scroller's content (px from its top), to see how far what came above moved it. */
interface Anchor {
  element: Element;
  top: number;
}

/**
 * The index of the first mounted row. It starts one slice from the end and moves up a slice in the same frame while
 * the rows do not fill the view, then a slice per task until it reaches the first row. Rows added at the end (a new
 * question, a streamed answer) are mounted as they come.
 */
function useMountedFrom(
  count: number,
  scroller: RefObject<HTMLElement | null>,
  content: RefObject<HTMLElement | null>,
  stick: BottomStick,
): number {
  const [from, setFrom] = useState(() => Math.max(0, count - ROWS_PER_SLICE));
  /** The first element of the rows mounted before the slice being committed was asked for. */
  const anchor = useRef<Anchor | null>(null);
  const mountedFrom = Math.min(from, count);

  useLayoutEffect(() => {
    const element = scroller.current;
    const was = anchor.current;
    anchor.current = null;
    if (element === null || was === null || !was.element.isConnected) return;
    stick.grewAbove(topInContent(was.element, element) - was.top);
  }, [mountedFrom, scroller, stick]);

  useLayoutEffect(() => {
    const element = scroller.current;
    if (mountedFrom === 0 || element === null) return;
    const moveUp = () => {
      const first = content.current?.firstElementChild ?? null;
      anchor.current = first === null ? null : { element: first, top: topInContent(first, element) };
      setFrom((mounted) => Math.max(0, Math.min(mounted, count) - ROWS_PER_SLICE));
    };
    // Before the first paint: a view with empty space above its rows.
    if (element.scrollHeight <= element.clientHeight) {
      moveUp();
      return;
    }
    const slice = setTimeout(moveUp, 0);
    return () => clearTimeout(slice);
  }, [mountedFrom, count, scroller, content]);

  return mountedFrom;
}

/** Where `element` is in `scroller`'s content, whatever the scroll position. */
function topInContent(element: Element, scroller: HTMLElement): number {
  return element.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop;
}
