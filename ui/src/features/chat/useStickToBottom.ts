// Auto-scroll that follows the stream only while the user is at the bottom: scrolling up stops it, scrolling
// back down resumes it. Growth is observed on the content element, so Markdown rendered a frame later counts.
import { useCallback, useEffect, useMemo, useRef, type RefObject } from "react";

/** How close to the bottom (px) still counts as "at the bottom". */
const BOTTOM_SLACK_PX = 48;

export interface BottomStick {
  /** Puts the view at the bottom and makes it follow the bottom again. */
  scrollToBottom: () => void;
  /** Whether the view follows the bottom now. */
  isStuck: () => boolean;
  /**
   * Puts the view back at the bottom if it follows it: for content that changed its height in a way the content's
   * ResizeObserver may see only after the scroll event it caused (see WindowedRows). A scroll up whose event has
   * not come yet counts: the view is left where the user put it.
   */
  holdBottom: () => void;
  /**
   * Rows `delta` px high were mounted above what is in view (RowsFromEnd): a view that follows the bottom is put back
   * there; one the user scrolled up moves down with what it shows, which is not the user scrolling.
   */
  grewAbove: (delta: number) => void;
}

export function useStickToBottom(
  scroller: RefObject<HTMLElement | null>,
  content: RefObject<HTMLElement | null>,
): BottomStick {
  const stick = useRef(true);
  /** Where the view was last seen or put by this hook: a scroll event above it is the user scrolling up. */
  const lastTop = useRef(0);
  /**
   * The scroll height at the last frame this hook saw (its resize callback or a scroll event). A scroll to the
   * bottom of what was on screen can reach its scroll event only after the content grew again; the user reached
   * the bottom they saw, so that is the bottom it is measured against.
   */
  const seenHeight = useRef(0);

  const isStuck = useCallback(() => stick.current, []);

  const pin = useCallback((element: HTMLElement) => {
    element.scrollTop = element.scrollHeight;
    lastTop.current = element.scrollTop;
    seenHeight.current = element.scrollHeight;
  }, []);

  const scrollToBottom = useCallback(() => {
    stick.current = true;
    const element = scroller.current;
    if (element !== null) pin(element);
  }, [scroller, pin]);

  /**
   * Reads where the view is as its scroll event would. Only the user moves scrollTop up from where it was last seen
   * or pinned: scrolling up releases the stream, reaching the bottom again re-attaches it. (Comparing against the
   * bottom alone would race with growth: a scroll event can arrive after the content grew again. Content that
   * shrinks, as a long conversation's rows do when their estimated heights give way to measured ones, moves
   * scrollTop up too, but to the bottom, where it stays attached.) Read before every pin as well: a render or a
   * resize can come between the user's scroll and its event, and pinning then would undo the scroll.
   */
  const observe = useCallback((element: HTMLElement) => {
    const top = element.scrollTop;
    const height = element.scrollHeight;
    if (top < lastTop.current - 1) stick.current = false;
    if (Math.min(height, seenHeight.current) - top - element.clientHeight <= BOTTOM_SLACK_PX) stick.current = true;
    lastTop.current = top;
    seenHeight.current = height;
  }, []);

  /** Pins the view to the bottom if, read as its scroll event would read it, it still follows the bottom. */
  const followBottom = useCallback(
    (element: HTMLElement) => {
      observe(element);
      if (stick.current) pin(element);
    },
    [observe, pin],
  );

  const holdBottom = useCallback(() => {
    const element = scroller.current;
    if (element !== null) followBottom(element);
  }, [scroller, followBottom]);

  const grewAbove = useCallback(
    (delta: number) => {
      const element = scroller.current;
      if (element === null) return;
      // Read against the height seen before the rows came: a scroll up whose event has not come yet counts.
      followBottom(element);
      if (stick.current) return;
      element.scrollTop += delta;
      lastTop.current = element.scrollTop;
      seenHeight.current = element.scrollHeight;
    },
    [scroller, followBottom],
  );

  useEffect(() => {
    const element = scroller.current;
    const inner = content.current;
    if (element === null || inner === null) return;
    lastTop.current = element.scrollTop;
    seenHeight.current = element.scrollHeight;
    const onScroll = () => observe(element);
    const observer = new ResizeObserver(() => followBottom(element));
    element.addEventListener("scroll", onScroll, { passive: true });
    observer.observe(inner);
    return () => {
      element.removeEventListener("scroll", onScroll);
      observer.disconnect();
    };
  }, [scroller, content, observe, followBottom]);

  return useMemo(
    () => ({ scrollToBottom, isStuck, holdBottom, grewAbove }),
    [scrollToBottom, isStuck, holdBottom, grewAbove],
  );
}
