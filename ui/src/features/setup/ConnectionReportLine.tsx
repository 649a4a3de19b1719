// What Test connection found, beside its button (the setup card and Settings): the models listed and how long it
// took, a server without a model list, or the problem in the window's words with the host's explanation.
import { WordedErrorText } from "../../i18n/ErrorText";
import { useStrings } from "../../i18n/I18n";
import { problemText } from "../../i18n/error-text";
import type { ConnectionReport } from "../../ipc/models";

export function ConnectionReportLine({ report }: { report: ConnectionReport }) {
  const strings = useStrings();
  return (
    <span
      className={report.ok ? "setup-report ok" : "setup-report failed"}
      data-testid="connection-report"
      data-ok={report.ok ? "true" : "false"}
      role="status"
    >
      {report.ok ? (
        report.models.length > 0 ? (
          strings.setup.connected(report.models.length, report.elapsedMs)
        ) : (
          strings.setup.noModelList
        )
      ) : report.problem !== undefined && report.problem !== null ? (
        <WordedErrorText worded={problemText(strings, report.problem)} />
      ) : null}
    </span>
  );
}
