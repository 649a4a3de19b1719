// Shows whether the agent is working; `data-state` is the stable hook tests read.
import type { RunStatus } from "../../state/chat";

const LABELS: Record<RunStatus, string> = {
  idle: "Idle",
  streaming: "Working…",
};

export function RunStatusBadge({ status }: { status: RunStatus }) {
  return (
    <span className={`run-status ${status}`} data-testid="run-status" data-state={status} role="status">
      {LABELS[status]}
    </span>
  );
}
