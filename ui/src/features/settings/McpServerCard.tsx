// One MCP server in "Tools & servers": its state (a restart shows its attempt), the exact command line or URL, a
// failed one's reason and last output, its tools with the server's claims and a toggle each, its "always"
// grants, and enable / restart / edit / remove (remove asks first).
import { useRef, useState } from "react";

import { useFocusTrap } from "../../a11y/useFocusTrap";
import { useStrings } from "../../i18n/I18n";
import type { McpServerView } from "../../ipc/wire";
import { stateLabel } from "./mcp-form";

export interface McpServerActions {
  setEnabled: (enabled: boolean) => void;
  setToolEnabled: (tool: string, enabled: boolean) => void;
  restart: () => void;
  edit: () => void;
  remove: () => void;
  revoke: (tool?: string) => void;
}

interface McpServerCardProps {
  server: McpServerView;
  busy: boolean;
  actions: McpServerActions;
}

export function McpServerCard({ server, busy, actions }: McpServerCardProps) {
  const strings = useStrings().mcp;
  const [confirmingRemove, setConfirmingRemove] = useState(false);
  const card = useRef<HTMLLIElement>(null);
  const state = server.status.state;
  const enabled = state !== "disabled";
  const troubled = state === "failed" || state === "restarting";

  return (
    <li ref={card} className="mcp-server" data-testid="mcp-server" data-name={server.name} data-state={state}>
      <div className="mcp-server-head">
        <strong className="mcp-server-name">{server.name}</strong>
        <span className={`mcp-state ${state}`} data-testid="mcp-state">
          {stateLabel(server.status, strings.state, strings.restartingAttempt)}
        </span>
        <label className="mcp-switch">
          <input
            type="checkbox"
            data-testid="mcp-enable"
            checked={enabled}
            disabled={busy}
            onChange={(event) => actions.setEnabled(event.target.checked)}
          />
          <span>{strings.enabled}</span>
        </label>
      </div>
      <code className="mcp-launch" data-testid="mcp-launch">
        {server.launch}
      </code>
      {state === "disabled" ? <p className="settings-note mcp-disabled-note">{strings.disabledNote}</p> : null}
      {server.status.state === "failed" ? <p className="mcp-reason">{server.status.reason}</p> : null}
      {troubled && server.stderrTail.length > 0 ? (
        <div className="mcp-output">
          <span className="mcp-output-label">{strings.lastOutput}</span>
          <pre className="mcp-stderr" data-testid="mcp-stderr">
            {server.stderrTail.join("\n")}
          </pre>
        </div>
      ) : null}
      {server.tools.length > 0 ? (
        <ul className="mcp-tools">
          {server.tools.map((tool) => (
            <li
              key={tool.name}
              className={`mcp-tool${tool.enabled ? "" : " off"}`}
              data-testid="mcp-tool"
              data-name={tool.name}
              data-enabled={tool.enabled ? "true" : "false"}
            >
              <label className="mcp-tool-head">
                <input
                  type="checkbox"
                  data-testid="mcp-tool-toggle"
                  checked={tool.enabled}
                  disabled={busy}
                  aria-label={strings.toolToggle(tool.name)}
                  onChange={(event) => actions.setToolEnabled(tool.name, event.target.checked)}
                />
                <code>{tool.name}</code>
              </label>
              {tool.destructiveClaim ? (
                <span className="mcp-claim destructive">{strings.destructiveClaim}</span>
              ) : tool.readOnlyClaim ? (
                <span className="mcp-claim">{strings.readOnlyClaim}</span>
              ) : null}
              {tool.enabled ? null : <span className="mcp-claim">{strings.toolOff}</span>}
              {tool.description !== "" ? <span className="mcp-tool-description">{tool.description}</span> : null}
            </li>
          ))}
        </ul>
      ) : state === "ready" ? (
        <p className="settings-note">{strings.noTools}</p>
      ) : null}
      {server.alwaysAllowServer || server.alwaysAllowed.length > 0 ? (
        <ul className="mcp-grants">
          {server.alwaysAllowServer ? (
            <li data-testid="mcp-grant" data-tool="">
              <span>{strings.grantServer}</span>
              <button type="button" data-testid="revoke-grant" onClick={() => actions.revoke()}>
                {strings.revoke}
              </button>
            </li>
          ) : null}
          {server.alwaysAllowed.map((tool) => (
            <li key={tool} data-testid="mcp-grant" data-tool={tool}>
              <span>{strings.grantTool(tool)}</span>
              <button type="button" data-testid="revoke-grant" onClick={() => actions.revoke(tool)}>
                {strings.revoke}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {confirmingRemove ? (
        <RemoveConfirmation
          question={strings.removeQuestion(server.name)}
          cancelLabel={strings.cancel}
          removeLabel={strings.remove}
          busy={busy}
          onCancel={() => setConfirmingRemove(false)}
          onRemove={() => {
            setConfirmingRemove(false);
            actions.remove();
          }}
          returnFocus={() => card.current?.querySelector<HTMLElement>('[data-testid="mcp-remove"]') ?? null}
        />
      ) : (
        <div className="mcp-actions">
          <button type="button" data-testid="mcp-restart" disabled={busy || !enabled} onClick={actions.restart}>
            {strings.restart}
          </button>
          <button type="button" data-testid="mcp-edit" disabled={busy} onClick={actions.edit}>
            {strings.edit}
          </button>
          <button
            type="button"
            className="danger"
            data-testid="mcp-remove"
            disabled={busy}
            onClick={() => setConfirmingRemove(true)}
          >
            {strings.remove}
          </button>
        </div>
      )}
    </li>
  );
}

interface RemoveConfirmationProps {
  question: string;
  cancelLabel: string;
  removeLabel: string;
  busy: boolean;
  onCancel: () => void;
  onRemove: () => void;
  /** The Remove button that opened it is replaced by it: focus goes to the new one when it closes. */
  returnFocus: () => HTMLElement | null;
}

/** "Remove this server?": focus stays on its two answers until one is chosen (Esc is Cancel). */
function RemoveConfirmation({ question, cancelLabel, removeLabel, busy, onCancel, onRemove, returnFocus }: RemoveConfirmationProps) {
  const dialog = useRef<HTMLDivElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useFocusTrap(dialog, { initialFocus: () => cancel.current, returnFocus });
  return (
    <div
      className="mcp-confirm"
      role="alertdialog"
      aria-modal="true"
      aria-label={question}
      ref={dialog}
      tabIndex={-1}
      onKeyDown={(event) => {
        if (event.key === "Escape" && !event.nativeEvent.isComposing) {
          event.stopPropagation();
          onCancel();
        }
      }}
    >
      <span>{question}</span>
      <div className="mcp-actions">
        <button type="button" ref={cancel} onClick={onCancel}>
          {cancelLabel}
        </button>
        <button type="button" className="danger" data-testid="mcp-remove-confirm" disabled={busy} onClick={onRemove}>
          {removeLabel}
        </button>
      </div>
    </div>
  );
}
