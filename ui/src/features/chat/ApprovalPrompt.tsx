// The approval question inside a tool card: the server, the tool, what the server claims about it, the full
// arguments, and the answers. Never a modal: the rest of the window stays usable.
import { useState } from "react";

import { useStrings } from "../../i18n/I18n";
import type { ApprovalDecision } from "../../ipc/wire";
import type { ApprovalView } from "../../state/chat";

interface ApprovalPromptProps {
  view: ApprovalView;
  onAnswer: (decision: ApprovalDecision) => void;
}

export function ApprovalPrompt({ view, onAnswer }: ApprovalPromptProps) {
  const strings = useStrings().approval;
  const [note, setNote] = useState("");
  const { request } = view;
  const busy = view.status !== "waiting";
  const trimmed = note.trim();
  const withNote = trimmed === "" ? {} : { note: trimmed };
  return (
    <div className="approval-prompt" data-testid="approval-prompt" role="group" aria-label={strings.title(request.tool, request.server)}>
      <p className="approval-title">{strings.title(request.tool, request.server)}</p>
      {request.destructiveClaim ? (
        <p className="approval-claim destructive">{strings.destructiveClaim}</p>
      ) : request.readOnlyClaim ? (
        <p className="approval-claim">{strings.readOnlyClaim}</p>
      ) : null}
      <pre className="approval-arguments" data-testid="approval-arguments">
        {JSON.stringify(request.arguments, null, 2)}
      </pre>
      <div className="approval-actions">
        <button type="button" data-testid="approve-once" disabled={busy} onClick={() => onAnswer({ decision: "allow_once" })}>
          {strings.allowOnce}
        </button>
        <button
          type="button"
          data-testid="approve-conversation"
          disabled={busy}
          onClick={() => onAnswer({ decision: "allow_conversation" })}
        >
          {strings.allowConversation}
        </button>
        <button
          type="button"
          data-testid="approve-tool-always"
          disabled={busy}
          onClick={() => onAnswer({ decision: "allow_tool_always" })}
        >
          {strings.allowToolAlways}
        </button>
        {request.destructiveClaim ? null : (
          <button
            type="button"
            data-testid="approve-server-always"
            disabled={busy}
            onClick={() => onAnswer({ decision: "allow_server_always" })}
          >
            {strings.allowServerAlways}
          </button>
        )}
      </div>
      <div className="approval-deny">
        <input
          type="text"
          data-testid="deny-note"
          value={note}
          placeholder={strings.notePlaceholder}
          aria-label={strings.notePlaceholder}
          disabled={busy}
          onChange={(event) => setNote(event.target.value)}
        />
        <button
          type="button"
          className="deny"
          data-testid="deny"
          disabled={busy}
          onClick={() => onAnswer({ decision: "deny", ...withNote })}
        >
          {strings.deny}
        </button>
        <button
          type="button"
          className="deny"
          data-testid="deny-stop"
          disabled={busy}
          onClick={() => onAnswer({ decision: "deny_and_stop", ...withNote })}
        >
          {strings.denyAndStop}
        </button>
      </div>
    </div>
  );
}
