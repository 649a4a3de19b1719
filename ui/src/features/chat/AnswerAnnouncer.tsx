// A visually hidden polite live region: it receives an answer's finished text once, when its run ends (see
// answer-announcement.ts), so a screen reader reads the answer instead of every streamed piece of it. The text is
// the answer as shown (its rendered Markdown's text, read from the page, which has all of it by then), not the
// Markdown source with its asterisks and hashes — except for a very long answer whose far pages left the DOM,
// which is announced from its source. Only the beginning of a long answer is read from the page (see
// ANNOUNCED_CHARS).
import { useEffect, useRef, useState } from "react";

import { PARKED_ATTRIBUTE } from "../../markdown/page-parking";
import { useCaughtUp, type RenderBacklog } from "../../markdown/render-backlog";
import type { ChatState } from "../../state/chat";
import {
  ANNOUNCED_CHARS,
  NO_WATCH,
  announcedText,
  watchAnswers,
  type FinishedAnswer,
} from "./answer-announcement";

interface AnswerAnnouncerProps {
  state: ChatState;
  /** The window's render backlog: the region never runs ahead of the text on screen. */
  backlog: RenderBacklog;
}

export function AnswerAnnouncer({ state, backlog }: AnswerAnnouncerProps) {
  const watch = useRef(NO_WATCH);
  const [announced, setAnnounced] = useState("");
  // Only re-runs the effect when the backlog empties or fills.
  const caughtUp = useCaughtUp(backlog);

  useEffect(() => {
    // The backlog as it is now, not as rendered: a view mounted in the commit this effect follows (a run that came
    // in one delivery) marked itself behind in its layout effect, after this component rendered.
    const next = watchAnswers(watch.current, state, backlog.caughtUp());
    watch.current = next.watch;
    if (next.announce !== null) setAnnounced(shownText(next.announce));
  }, [state, caughtUp, backlog]);

  return (
    <div className="visually-hidden" aria-live="polite" data-testid="answer-announcer">
      {announced}
    </div>
  );
}

function shownText(answer: FinishedAnswer): string {
  const message = document.querySelector(`[data-testid="message-assistant"][data-item-id="${CSS.escape(answer.itemId)}"]`);
  // A very long answer keeps only the pages near the viewport in the DOM (markdown/page-parking.ts).
  if (message === null || message.querySelector(`[${PARKED_ATTRIBUTE}]`) !== null) return announcedText(answer.source);
  const parts = [...message.querySelectorAll('[data-testid="assistant-text"]')];
  const text = parts
    .map((part) => leadingText(part, ANNOUNCED_CHARS))
    .join("\n")
    .trim();
  // Not on screen (a replay shows another view): the source is still better than silence.
  return announcedText(text === "" ? answer.source : text);
}

/** The element's text, as `textContent` has it, read only until it is longer than `limit` characters. */
function leadingText(element: Element, limit: number): string {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  let text = "";
  for (let node = walker.nextNode(); node !== null && text.length <= limit; node = walker.nextNode()) {
    text += node.nodeValue ?? "";
  }
  return text;
}
