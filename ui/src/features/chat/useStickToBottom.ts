// Auto-scroll that follows the stream only while the user is at the bottom: scrolling up stops it, scrolling
// back down resumes it. Growth is observed on the content element, so Markdown rendered a frame later counts.
import { useCallback, useEffect, useRef, type RefObject } from "react";

/** How close to the bottom (px) still counts as "at the bottom". */
const BOTTOM_SLACK_PX = 48;

export function useStickToBottom(
  scroller: RefObject<HTMLElement | null>,
  content: RefObject<HTMLElement | null>,
): { scrollToBottom: () => void } {
  const stick = useRef(true);

  const scrollToBottom = useCallback(() => {
    stick.current = true;
    const element = scroller.current;
    if (element !== null) element.scrollTop = element.scrollHeight;
  }, [scroller]);

  useEffect(() => {
    const element = scroller.current;
    const inner = content.current;
    if (element === null || inner === null) return;
    // Content growing never moves scrollTop up, so only the user does: scrolling up releases the stream,
    // reaching the bottom again re-attaches it. (Comparing against the bottom alone would race with growth:
    // a scroll event can arrive after the content grew again.)
    let lastTop = element.scrollTop;
    const onScroll = () => {
      const top = element.scrollTop;
      if (top < lastTop - 1) stick.current = false;
      if (element.scrollHeight - top - element.clientHeight <= BOTTOM_SLACK_PX) stick.current = true;
      lastTop = top;
    };
    const observer = new ResizeObserver(() => {
      if (stick.current) element.scrollTop = element.scrollHeight;
    });
    element.addEventListener("scroll", onScroll, { passive: true });
    observer.observe(inner);
    return () => {
      element.removeEventListener("scroll", onScroll);
      observer.disconnect();
    };
  }, [scroller, content]);

  return { scrollToBottom };
}
