// The approval question inside a tool card: the server (the app itself for a built-in tool), the tool, what the
// server claims about it, the full arguments, and the answers the question offers. Never a modal: the rest of the
// window stays usable.
import { useState } from "react";

import { useStrings } from "../../i18n/I18n";
import type { ApprovalChoice } from "../../ipc/bindings/ApprovalChoice";
import type { ApprovalDecision, ApprovalRequest } from "../../ipc/wire";
import type { ApprovalView } from "../../state/chat";

const EVERY_CHOICE: readonly ApprovalChoice[] = [
  "allow_once",
  "allow_conversation",
  "allow_tool_always",
  "allow_server_always",
  "deny",
  "deny_and_stop",
];

/** The answers the question takes; a question from a host that did not say offers all but what it refuses. */
function offeredChoices(request: ApprovalRequest): readonly ApprovalChoice[] {
  if (request.offered !== undefined) return request.offered;
  return request.destructiveClaim ? EVERY_CHOICE.filter((choice) => choice !== "allow_server_always") : EVERY_CHOICE;
}

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
  const offered = offeredChoices(request);
  const builtIn = request.builtIn === true;
  const title = builtIn ? strings.titleBuiltIn(request.tool, strings.builtInServer) : strings.title(request.tool, request.server);
  return (
    <div className="approval-prompt" data-testid="approval-prompt" data-built-in={builtIn} role="group" aria-label={title}>
      <p className="approval-title">{title}</p>
      {builtIn ? (
        <p className="approval-claim">{strings.builtInNote}</p>
      ) : request.destructiveClaim ? (
        <p className="approval-claim destructive">{strings.destructiveClaim}</p>
      ) : request.readOnlyClaim ? (
        <p className="approval-claim">{strings.readOnlyClaim}</p>
      ) : null}
      <pre className="approval-arguments" data-testid="approval-arguments">
        {JSON.stringify(request.arguments, null, 2)}
      </pre>
      <div className="approval-actions">
        {offered.includes("allow_once") ? (
          <button type="button" data-testid="approve-once" disabled={busy} onClick={() => onAnswer({ decision: "allow_once" })}>
            {strings.allowOnce}
          </button>
        ) : null}
        {offered.includes("allow_conversation") ? (
          <button
            type="button"
            data-testid="approve-conversation"
            disabled={busy}
            onClick={() => onAnswer({ decision: "allow_conversation" })}
          >
            {strings.allowConversation}
          </button>
        ) : null}
        {offered.includes("allow_tool_always") ? (
          <button
            type="button"
            data-testid="approve-tool-always"
            disabled={busy}
            onClick={() => onAnswer({ decision: "allow_tool_always" })}
          >
            {strings.allowToolAlways}
          </button>
        ) : null}
        {offered.includes("allow_server_always") ? (
          <button
            type="button"
            data-testid="approve-server-always"
            disabled={busy}
            onClick={() => onAnswer({ decision: "allow_server_always" })}
          >
            {strings.allowServerAlways}
          </button>
        ) : null}
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
        {offered.includes("deny") ? (
          <button
            type="button"
            className="deny"
            data-testid="deny"
            disabled={busy}
            onClick={() => onAnswer({ decision: "deny", ...withNote })}
          >
            {strings.deny}
          </button>
        ) : null}
        {offered.includes("deny_and_stop") ? (
          <button
            type="button"
            className="deny"
            data-testid="deny-stop"
            disabled={busy}
            onClick={() => onAnswer({ decision: "deny_and_stop", ...withNote })}
          >
            {strings.denyAndStop}
          </button>
        ) : null}
      </div>
    </div>
  );
}
