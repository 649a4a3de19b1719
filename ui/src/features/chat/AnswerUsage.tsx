// Under a finished answer: its input, output and cache tokens and its cost ("cost unknown" for a model without a
// known price). Nothing when the provider reported no usage.
import { useStrings } from "../../i18n/I18n";
import type { Language } from "../../i18n/strings";
import type { Usage } from "../../ipc/wire";
import { answerUsage } from "../../state/usage";
import { formatCost, formatTokens } from "./usage-format";
import "./usage.css";

export function AnswerUsage({ usage, language }: { usage: Usage | undefined; language: Language }) {
  const strings = useStrings().usage;
  const reported = answerUsage(usage);
  if (reported === null) return null;
  const tokens = (count: number) => formatTokens(count, language);
  return (
    <div className="answer-usage" data-testid="answer-usage" aria-label={strings.answerLabel}>
      <span data-testid="usage-input">
        {strings.input} {tokens(reported.input)}
      </span>
      <span data-testid="usage-output">
        {strings.output} {tokens(reported.output)}
      </span>
      {reported.cacheRead > 0 || reported.cacheWrite > 0 ? (
        <span data-testid="usage-cache">
          {strings.cacheRead} {tokens(reported.cacheRead)} · {strings.cacheWrite} {tokens(reported.cacheWrite)}
        </span>
      ) : null}
      {reported.cost === null ? (
        <span className="usage-cost unknown" data-testid="usage-cost" data-known="false" title={strings.costUnknownTitle}>
          {strings.costUnknown}
        </span>
      ) : (
        <span className="usage-cost" data-testid="usage-cost" data-known="true">
          {formatCost(reported.cost)}
        </span>
      )}
    </div>
  );
}
