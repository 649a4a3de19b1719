// Below the composer: running / settling / idle ("waiting for the model… N s" once the stream has been silent a
// while), the run's turn count, the conversation's tokens (its size, each token once), its usage totals and
// context meter, and the model the last answer came from (and the one the next turn goes to, when the user
// changed it).
import { useEffect, useRef, useState } from "react";

import { useStrings } from "../../i18n/I18n";
import type { Language } from "../../i18n/strings";
import { silentSeconds, type StatusLine as StatusLineFacts } from "../../state/selectors";
import { ConversationUsage } from "./ConversationUsage";
import "./status-line.css";

interface StatusLineProps {
  facts: StatusLineFacts;
  modelName: string;
  /** The model the newest answer came from, when it is not `modelName` (a change applies from the next turn). */
  usedModel?: string | null;
  /** Changes with every envelope of the conversation (its last sequence number). */
  activity: number;
  /** The model's context window in tokens, for the context meter; `null` while it is not known. */
  contextWindow?: number | null;
  language?: Language;
}

export function StatusLine({
  facts,
  modelName,
  usedModel = null,
  activity,
  contextWindow = null,
  language = "en",
}: StatusLineProps) {
  const strings = useStrings();
  const silent = useSilentSeconds(facts, activity);
  return (
    <div className="status-line">
      <span className={`run-status ${facts.status}`} data-testid="run-status" data-state={facts.status} role="status">
        <span className="status-dot" aria-hidden="true" />
        {strings.runStatus[facts.status]}
      </span>
      {silent !== null ? (
        <span className="status-waiting" data-testid="waiting-for-model">
          {strings.waitingForModel(silent)}
        </span>
      ) : null}
      <span className="status-sep" aria-hidden="true">
        ·
      </span>
      <span data-testid="turn-count">{strings.turns(facts.turnCount)}</span>
      <span className="status-sep" aria-hidden="true">
        ·
      </span>
      <span data-testid="tokens-used">{strings.tokens(facts.tokensUsed)}</span>
      <ConversationUsage usage={facts.usage} contextWindow={contextWindow} language={language} />
      {modelName !== "" ? (
        <span className="status-model" data-testid="status-model" title={strings.modelInUse}>
          {usedModel !== null && usedModel !== modelName ? strings.modelNext(usedModel, modelName) : modelName}
        </span>
      ) : null}
    </div>
  );
}

/** Seconds since the last envelope while the run waits on the model; a one-second clock redraws it. */
function useSilentSeconds(facts: StatusLineFacts, activity: number): number | null {
  const lastActivity = useRef(Date.now());
  const [now, setNow] = useState(() => Date.now());
  const waiting = facts.waitingOnModel;

  useEffect(() => {
    lastActivity.current = Date.now();
    setNow(lastActivity.current);
  }, [activity, waiting]);

  useEffect(() => {
    if (!waiting) return;
    const clock = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(clock);
  }, [waiting]);

  return silentSeconds(facts, lastActivity.current, now);
}
