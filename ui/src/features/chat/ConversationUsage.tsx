// In the status line: the conversation's tokens and cost, each model call counted once, and the context meter
// (how full the model's context window was at the last request; it warns from CONTEXT_WARN_RATIO on).
import { useLayoutEffect, useRef } from "react";

import { useStrings } from "../../i18n/I18n";
import type { Language } from "../../i18n/strings";
import { contextFill, type ConversationUsage as Totals } from "../../state/usage";
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
          <ContextBar percent={Math.min(Math.round(fill.ratio * 100), 100)} label={strings.contextLabel} />
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

/**
 * The meter's bar: a filled span whose width is set through the CSSOM (the CSP refuses style attributes). Not a
 * `<meter>`, which WebKitGTK draws with the GTK theme and which stalled the window's painting.
 */
function ContextBar({ percent, label }: { percent: number; label: string }) {
  const fillRef = useRef<HTMLSpanElement>(null);
  useLayoutEffect(() => {
    if (fillRef.current !== null) fillRef.current.style.width = `${percent}%`;
  }, [percent]);
  return (
    <span className="context-bar" role="meter" aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} aria-label={label}>
      <span ref={fillRef} className="context-bar-fill" />
    </span>
  );
}
