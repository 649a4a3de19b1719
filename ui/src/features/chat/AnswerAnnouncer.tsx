// A visually hidden polite live region: it receives an answer's finished text once, when its run ends (see
// answer-announcement.ts), so a screen reader reads the answer instead of every streamed piece of it.
import { useEffect, useRef, useState } from "react";

import type { ChatState } from "../../state/chat";
import { NO_WATCH, watchAnswers } from "./answer-announcement";

interface AnswerAnnouncerProps {
  state: ChatState;
  /** The answer's text is on screen (the region never runs ahead of it). */
  caughtUp: boolean;
}

export function AnswerAnnouncer({ state, caughtUp }: AnswerAnnouncerProps) {
  const watch = useRef(NO_WATCH);
  const [announced, setAnnounced] = useState("");

  useEffect(() => {
    const next = watchAnswers(watch.current, state, caughtUp);
    watch.current = next.watch;
    if (next.announce !== null) setAnnounced(next.announce);
  }, [state, caughtUp]);

  return (
    <div className="visually-hidden" aria-live="polite" data-testid="answer-announcer">
      {announced}
    </div>
  );
}
