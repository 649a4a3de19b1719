// The add / edit form of an MCP server: a program (command, arguments one per line, working folder, variables)
// or a URL (headers), and the timeouts. Values typed here go to the keychain; stored values are never shown, only
// where they are kept, and an empty value keeps the stored one.
import { useState, type FormEvent } from "react";

import { useStrings } from "../../i18n/I18n";
import type { CommandError } from "../../ipc/wire";
import { newRow, type ServerDraft, type ValueRow } from "./mcp-form";
import { ErrorText } from "../../i18n/ErrorText";

interface McpServerFormProps {
  initial: ServerDraft;
  busy: boolean;
  error: CommandError | null;
  onSave: (draft: ServerDraft) => void;
  onCancel: () => void;
}

export function McpServerForm({ initial, busy, error, onSave, onCancel }: McpServerFormProps) {
  const strings = useStrings().mcp.form;
  const cancel = useStrings().mcp.cancel;
  const [draft, setDraft] = useState<ServerDraft>(initial);
  const update = (patch: Partial<ServerDraft>) => setDraft((current) => ({ ...current, ...patch }));
  const section = draft.kind === "stdio" ? "env" : "headers";

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    onSave(draft);
  };

  return (
    <form className="mcp-form" data-testid="mcp-server-form" onSubmit={onSubmit}>
      <h4>{draft.previousName === null ? strings.addTitle : strings.editTitle(draft.previousName)}</h4>
      <label className="field">
        <span>{strings.name}</span>
        <input
          data-testid="mcp-form-name"
          spellCheck={false}
          autoComplete="off"
          value={draft.name}
          onChange={(event) => update({ name: event.target.value })}
        />
      </label>
      <fieldset className="field mcp-kind">
        <legend>{strings.runsAs}</legend>
        <label>
          <input
            type="radio"
            name="mcp-kind"
            data-testid="mcp-form-kind-stdio"
            checked={draft.kind === "stdio"}
            onChange={() => update({ kind: "stdio" })}
          />
          <span>{strings.stdio}</span>
        </label>
        <label>
          <input
            type="radio"
            name="mcp-kind"
            data-testid="mcp-form-kind-http"
            checked={draft.kind === "http"}
            onChange={() => update({ kind: "http" })}
          />
          <span>{strings.http}</span>
        </label>
      </fieldset>
      {draft.kind === "stdio" ? (
        <>
          <label className="field">
            <span>{strings.command}</span>
            <input
              data-testid="mcp-form-command"
              spellCheck={false}
              autoComplete="off"
              placeholder="npx"
              value={draft.command}
              onChange={(event) => update({ command: event.target.value })}
            />
          </label>
          <label className="field">
            <span>{strings.args}</span>
            <textarea
              data-testid="mcp-form-args"
              rows={3}
              spellCheck={false}
              placeholder={"-y\n@modelcontextprotocol/server-everything"}
              value={draft.args}
              onChange={(event) => update({ args: event.target.value })}
            />
          </label>
          <label className="field">
            <span>{strings.cwd}</span>
            <input
              data-testid="mcp-form-cwd"
              spellCheck={false}
              autoComplete="off"
              value={draft.cwd}
              onChange={(event) => update({ cwd: event.target.value })}
            />
          </label>
        </>
      ) : (
        <label className="field">
          <span>{strings.url}</span>
          <input
            data-testid="mcp-form-url"
            type="url"
            spellCheck={false}
            autoComplete="off"
            placeholder="https://example.com/mcp"
            value={draft.url}
            onChange={(event) => update({ url: event.target.value })}
          />
        </label>
      )}
      <ValueRows
        legend={draft.kind === "stdio" ? strings.variables : strings.headers}
        addLabel={draft.kind === "stdio" ? strings.addVariable : strings.addHeader}
        rows={draft[section]}
        onChange={(rows) => update(section === "env" ? { env: rows } : { headers: rows })}
      />
      <p className="settings-note mcp-keychain-note">{strings.keychainNote}</p>
      <div className="field-row">
        <label className="field">
          <span>{strings.timeout}</span>
          <input
            data-testid="mcp-form-timeout"
            type="number"
            min={1}
            inputMode="numeric"
            value={draft.timeout}
            onChange={(event) => update({ timeout: event.target.value })}
          />
        </label>
        <label className="field">
          <span>{strings.totalTimeout}</span>
          <input
            data-testid="mcp-form-total-timeout"
            type="number"
            min={1}
            inputMode="numeric"
            value={draft.totalTimeout}
            onChange={(event) => update({ totalTimeout: event.target.value })}
          />
        </label>
      </div>
      {error !== null ? (
        <p className="settings-error" data-testid="mcp-form-error" role="alert">
          <ErrorText error={error} />
        </p>
      ) : null}
      <div className="settings-actions">
        <span className="settings-note">{draft.previousName === null && !draft.disabled ? strings.startsOnSave : ""}</span>
        <div className="mcp-actions">
          <button type="button" data-testid="mcp-form-cancel" onClick={onCancel}>
            {cancel}
          </button>
          <button type="submit" className="primary" data-testid="mcp-form-save" disabled={busy}>
            {strings.save}
          </button>
        </div>
      </div>
    </form>
  );
}

interface ValueRowsProps {
  legend: string;
  addLabel: string;
  rows: ValueRow[];
  onChange: (rows: ValueRow[]) => void;
}

/** Variables or headers: a name and a write-only value per row. */
function ValueRows({ legend, addLabel, rows, onChange }: ValueRowsProps) {
  const strings = useStrings().mcp.form;
  const change = (id: number, patch: Partial<ValueRow>) =>
    onChange(rows.map((row) => (row.id === id ? { ...row, ...patch } : row)));

  return (
    <fieldset className="field mcp-values">
      <legend>{legend}</legend>
      {rows.map((row) => (
        <div key={row.id} className="mcp-value-row" data-testid="mcp-form-value" data-name={row.name}>
          <input
            aria-label={strings.valueName}
            placeholder={strings.valueName}
            data-testid="mcp-form-value-name"
            spellCheck={false}
            autoComplete="off"
            readOnly={row.stored !== null}
            value={row.name}
            onChange={(event) => change(row.id, { name: event.target.value })}
          />
          <input
            aria-label={strings.value}
            placeholder={
              row.stored === "keychain" ? strings.keptInKeychain : row.stored === "file" ? strings.keptInFile : strings.value
            }
            title={row.stored === "file" ? strings.keptInFile : undefined}
            data-testid="mcp-form-value-value"
            type="password"
            spellCheck={false}
            autoComplete="new-password"
            value={row.value}
            onChange={(event) => change(row.id, { value: event.target.value })}
          />
          <button type="button" className="mcp-value-remove" onClick={() => onChange(rows.filter((other) => other.id !== row.id))}>
            {strings.removeValue}
          </button>
        </div>
      ))}
      <button type="button" className="mcp-value-add" data-testid="mcp-form-add-value" onClick={() => onChange([...rows, newRow()])}>
        {addLabel}
      </button>
    </fieldset>
  );
}
