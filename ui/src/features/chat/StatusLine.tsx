// Below the composer: running / settling / idle, the run's turn count and the conversation's tokens.
import { useStrings } from "../../i18n/I18n";
import type { StatusLine as StatusLineFacts } from "../../state/selectors";

export function StatusLine({ facts, modelName }: { facts: StatusLineFacts; modelName: string }) {
  const strings = useStrings();
  return (
    <div className="status-line">
      <span className={`run-status ${facts.status}`} data-testid="run-status" data-state={facts.status} role="status">
        <span className="status-dot" aria-hidden="true" />
        {strings.runStatus[facts.status]}
      </span>
      <span className="status-sep" aria-hidden="true">
        ·
      </span>
      <span data-testid="turn-count">{strings.turns(facts.turnCount)}</span>
      <span className="status-sep" aria-hidden="true">
        ·
      </span>
      <span data-testid="tokens-used">{strings.tokens(facts.tokensUsed)}</span>
      {modelName !== "" ? <span className="status-model">{modelName}</span> : null}
    </div>
  );
}
