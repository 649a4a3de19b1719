// A request to the model that failed before any answer (a 429, a 5xx, a lost connection) goes again after a
// wait: the line above the composer says so, with the attempt, until the answer starts or the run ends.
import { useStrings } from "../../i18n/I18n";
import type { RetryNoticeView } from "../../ipc/bindings/RetryNoticeView";

export function RetryLine({ retry }: { retry: RetryNoticeView | null }) {
  const strings = useStrings();
  if (retry === null) return null;
  const cause = retry.cause === "status" && retry.status !== undefined ? `HTTP ${retry.status}` : retry.cause;
  return (
    <p className="retry-line" data-testid="retry-line" role="status" data-attempt={retry.attempt}>
      {strings.retrying(Math.max(1, Math.round(retry.delayMs / 1000)), retry.attempt, retry.maxRetries, cause)}
    </p>
  );
}
