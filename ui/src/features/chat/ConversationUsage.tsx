// In the status line: the conversation's tokens and cost, each model call counted once, and the context meter
// (how full the model's context window was at the last request; it warns from CONTEXT_WARN_RATIO on).
import { useStrings } from "../../i18n/I18n";
import type { Language } from "../../i18n/strings";
import { contextFill, type ConversationUsage as Totals } from "../../state/usage";
import { CONTEXT_WARN_RATIO } from "../../state/usage";
import { formatCost, formatTokens } from "./usage-format";
import "./usage.css";

interface ConversationUsageProps {
  usage: Totals | null;
  /** The model's context window in tokens; `null` while it is not known. */
  contextWindow: number | null;
  language: Language;
}

export function ConversationUsage({ usage, contextWindow, language }: ConversationUsageProps) {
  const strings = useStrings().usage;
  if (usage === null) return null;
  const tokens = (count: number) => formatTokens(count, language);
  const fill = contextFill(usage, contextWindow);
  const cost =
    usage.cost === null
      ? strings.costUnknown
      : usage.costPartial
        ? strings.costPartial(formatCost(usage.cost))
        : formatCost(usage.cost);
  return (
    <>
      <span className="conversation-usage" data-testid="conversation-usage" title={strings.conversationLabel}>
        {strings.total}: {strings.input} {tokens(usage.input)} · {strings.output} {tokens(usage.output)}
        {usage.cacheRead > 0 || usage.cacheWrite > 0
          ? ` · ${strings.cacheRead} ${tokens(usage.cacheRead)} · ${strings.cacheWrite} ${tokens(usage.cacheWrite)}`
          : ""}
        {" · "}
        <span data-testid="conversation-cost" data-known={usage.cost === null ? "false" : "true"}>
          {cost}
        </span>
        {` (${strings.calls(usage.calls)})`}
      </span>
      {fill !== null ? (
        <span
          className={`context-meter ${fill.level}`}
          data-testid="context-meter"
          data-level={fill.level}
          title={fill.level === "ok" ? strings.contextLabel : fill.level === "warn" ? strings.contextWarn : strings.contextFull}
          role={fill.level === "ok" ? undefined : "alert"}
        >
          <meter
            min={0}
            max={1}
            low={CONTEXT_WARN_RATIO}
            high={0.999}
            optimum={0}
            value={Math.min(fill.ratio, 1)}
            aria-label={strings.contextLabel}
          />
          {strings.context(Math.round(fill.ratio * 100), tokens(fill.tokens), tokens(fill.window))}
          {fill.level === "ok" ? null : (
            <span className="context-warning" data-testid="context-warning">
              {fill.level === "warn" ? strings.contextWarn : strings.contextFull}
            </span>
          )}
        </span>
      ) : null}
    </>
  );
}
