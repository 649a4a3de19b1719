// Import from Claude Desktop and Cursor: every server their files name, each with the exact command line or URL
// it would run and what is wrong with it; the chosen ones are copied into mcp.json disabled.
import { useEffect, useRef, useState } from "react";

import { useFocusTrap } from "../../a11y/useFocusTrap";
import { useStrings } from "../../i18n/I18n";
import {
  mcpImportCandidates,
  toCommandError,
  type McpImportCandidate,
  type McpImportCandidates,
  type McpImportChoice,
} from "../../ipc/backend";
import type { CommandError } from "../../ipc/wire";
import { ErrorText } from "../../i18n/ErrorText";

interface McpImportProps {
  /** Imports the chosen servers; resolves with why not, or null once they are in mcp.json. */
  onImport: (chosen: McpImportChoice[]) => Promise<CommandError | null>;
  onCancel: () => void;
}

const key = (candidate: Pick<McpImportCandidate, "source" | "name">) => `${candidate.source}\u0000${candidate.name}`;
const importable = (candidate: McpImportCandidate) => candidate.launch !== undefined && !candidate.nameTaken;

export function McpImport({ onImport, onCancel }: McpImportProps) {
  const strings = useStrings().mcp;
  const [listing, setListing] = useState<McpImportCandidates | null>(null);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<CommandError | null>(null);
  const [busy, setBusy] = useState(false);
  const panel = useRef<HTMLDivElement>(null);
  // The Import button is disabled while this is open, so it cannot keep the focus: it gets it back on closing.
  useFocusTrap(panel, { returnFocus: () => document.querySelector<HTMLElement>('[data-testid="mcp-import"]') });

  useEffect(() => {
    let current = true;
    mcpImportCandidates().then(
      (loaded) => {
        if (current) setListing(loaded);
      },
      (failure: unknown) => {
        if (current) setError(toCommandError(failure));
      },
    );
    return () => {
      current = false;
    };
  }, []);

  const toggle = (candidate: McpImportCandidate, on: boolean) =>
    setChosen((current) => {
      const next = new Set(current);
      if (on) next.add(key(candidate));
      else next.delete(key(candidate));
      return next;
    });

  const confirm = () => {
    if (listing === null) return;
    const picks = listing.candidates
      .filter((candidate) => chosen.has(key(candidate)))
      .map(({ source, name }) => ({ source, name }));
    setBusy(true);
    setError(null);
    void onImport(picks).then((refusal) => {
      setBusy(false);
      setError(refusal);
    });
  };

  return (
    <div
      className="mcp-import"
      data-testid="mcp-import-panel"
      role="dialog"
      aria-modal="true"
      aria-labelledby="mcp-import-title"
      tabIndex={-1}
      ref={panel}
      onKeyDown={(event) => {
        // Esc closes this panel, not the settings around it.
        if (event.key === "Escape" && !event.nativeEvent.isComposing) {
          event.stopPropagation();
          onCancel();
        }
      }}
    >
      <h4 id="mcp-import-title">{strings.importTitle}</h4>
      <p className="settings-note">{strings.importIntro}</p>
      {listing === null && error === null ? <p className="settings-note">{strings.importLoading}</p> : null}
      {listing?.files
        .filter((file) => file.problem !== undefined)
        .map((file) => (
          <p key={file.path} className="mcp-problem" role="alert">
            {`${strings.importSource[file.source]}: ${file.path}: ${file.problem ?? ""}`}
          </p>
        ))}
      {listing !== null && listing.candidates.length === 0 ? (
        <div className="settings-note" data-testid="mcp-import-none">
          <p>{strings.importNone}</p>
          <ul className="mcp-import-files">
            {listing.files.map((file) => (
              <li key={file.path}>
                {`${strings.importSource[file.source]}: `}
                <code>{file.found ? file.path : strings.importNotFound(file.path)}</code>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {listing !== null && listing.candidates.length > 0 ? (
        <ul className="mcp-import-list">
          {listing.candidates.map((candidate) => (
            <li
              key={key(candidate)}
              className="mcp-import-candidate"
              data-testid="mcp-import-candidate"
              data-name={candidate.name}
              data-source={candidate.source}
            >
              <label className="mcp-tool-head">
                <input
                  type="checkbox"
                  data-testid="mcp-import-choose"
                  disabled={busy || !importable(candidate)}
                  checked={chosen.has(key(candidate))}
                  onChange={(event) => toggle(candidate, event.target.checked)}
                />
                <strong>{candidate.name}</strong>
                <span className="mcp-import-source">{strings.importSource[candidate.source]}</span>
              </label>
              {candidate.launch !== undefined ? <code className="mcp-launch">{candidate.launch}</code> : null}
              {candidate.nameTaken ? <span className="settings-note">{strings.importTaken}</span> : null}
              {candidate.problems.map((problem) => (
                <span key={problem} className="mcp-problem">
                  {problem}
                </span>
              ))}
            </li>
          ))}
        </ul>
      ) : null}
      {error !== null ? (
        <p className="settings-error" role="alert">
          <ErrorText error={error} />
        </p>
      ) : null}
      <div className="mcp-actions end">
        <button type="button" onClick={onCancel}>
          {strings.cancel}
        </button>
        <button
          type="button"
          className="primary"
          data-testid="mcp-import-confirm"
          disabled={busy || chosen.size === 0}
          onClick={confirm}
        >
          {strings.importConfirm(chosen.size)}
        </button>
      </div>
    </div>
  );
}
