// "Tools & servers" in the settings: every MCP server of mcp.json with its state (followed live: starting → ready,
// a crash → restarting → ready), its exact command line, its tools (each with a toggle) and grants; add, edit,
// remove, enable and restart a server; import the servers of Claude Desktop and Cursor (they arrive disabled); the
// file's problems on top, and what of MCP is not supported yet.
import { useEffect, useRef, useState } from "react";

import { useStrings } from "../../i18n/I18n";
import {
  importMcpServers,
  removeMcpServer,
  restartMcpServer,
  revokeMcpGrant,
  saveMcpServer,
  setMcpServerEnabled,
  setMcpToolEnabled,
  subscribeMcpServers,
  toCommandError,
  type McpImportChoice,
} from "../../ipc/backend";
import type { CommandError, McpServersView, McpServerView } from "../../ipc/wire";
import { McpImport } from "./McpImport";
import { McpServerCard, type McpServerActions } from "./McpServerCard";
import { McpServerForm } from "./McpServerForm";
import { draftOf, emptyDraft, serverInput, type ServerDraft } from "./mcp-form";
import { ErrorText } from "../../i18n/ErrorText";

type Panel = { kind: "none" } | { kind: "form"; draft: ServerDraft } | { kind: "import" };

export function McpSection() {
  const strings = useStrings().mcp;
  const [view, setView] = useState<McpServersView | null>(null);
  const [error, setError] = useState<CommandError | null>(null);
  const [formError, setFormError] = useState<CommandError | null>(null);
  const [panel, setPanel] = useState<Panel>({ kind: "none" });
  const [busy, setBusy] = useState(false);
  // Views pushed by the host since the page subscribed. A command's answer is shown only when none came after the
  // command was sent: a pushed view is never older, and the host pushes again after every later change.
  const pushed = useRef(0);

  useEffect(() => {
    let current = true;
    subscribeMcpServers((latest) => {
      if (!current) return;
      pushed.current += 1;
      setView(latest);
    }).then(
      (first) => {
        if (current && pushed.current === 0) setView(first);
      },
      (failure: unknown) => {
        if (current) setError(toCommandError(failure));
      },
    );
    return () => {
      current = false;
    };
  }, []);

  /** Runs a command that answers with the servers; resolves with why it failed, or null. */
  const perform = (action: () => Promise<McpServersView>): Promise<CommandError | null> => {
    const before = pushed.current;
    setBusy(true);
    setError(null);
    return action().then(
      (answer) => {
        setBusy(false);
        if (pushed.current === before) setView(answer);
        return null;
      },
      (failure: unknown) => {
        setBusy(false);
        return toCommandError(failure);
      },
    );
  };

  const showing = (action: () => Promise<McpServersView>) => {
    void perform(action).then((failure) => {
      if (failure !== null) setError(failure);
    });
  };

  const save = (draft: ServerDraft) => {
    setFormError(null);
    void perform(() => saveMcpServer(serverInput(draft))).then((failure) => {
      if (failure === null) setPanel({ kind: "none" });
      else setFormError(failure);
    });
  };

  const importChosen = (chosen: McpImportChoice[]) =>
    perform(() => importMcpServers(chosen)).then((failure) => {
      if (failure === null) setPanel({ kind: "none" });
      return failure;
    });

  const actionsFor = (server: McpServerView): McpServerActions => ({
    setEnabled: (enabled) => showing(() => setMcpServerEnabled(server.name, enabled)),
    setToolEnabled: (tool, enabled) => showing(() => setMcpToolEnabled(server.name, tool, enabled)),
    restart: () => showing(() => restartMcpServer(server.name)),
    edit: () => {
      setFormError(null);
      setPanel({ kind: "form", draft: draftOf(server) });
    },
    remove: () => showing(() => removeMcpServer(server.name)),
    revoke: (tool) => showing(() => revokeMcpGrant(server.name, tool)),
  });

  const editing = panel.kind === "form" ? panel.draft.previousName : null;

  return (
    <section className="mcp-section" data-testid="mcp-settings" aria-labelledby="mcp-heading">
      <h3 id="mcp-heading">{strings.title}</h3>
      {view?.problems.map((problem) => (
        <p key={problem} className="mcp-problem" role="alert">
          {problem}
        </p>
      ))}
      <p className="settings-note">{strings.intro}</p>
      <p className="settings-note">{strings.manage}</p>
      <p className="settings-note mcp-unsupported" data-testid="mcp-unsupported">
        {strings.unsupported}
      </p>
      {error !== null ? (
        <p className="settings-error" data-testid="mcp-error" role="alert">
          <ErrorText error={error} />
        </p>
      ) : null}
      {view === null ? null : (
        <>
          <div className="mcp-toolbar">
            <button
              type="button"
              data-testid="mcp-add"
              disabled={panel.kind === "form" && editing === null}
              onClick={() => {
                setFormError(null);
                setPanel({ kind: "form", draft: emptyDraft() });
              }}
            >
              {strings.add}
            </button>
            <button
              type="button"
              data-testid="mcp-import"
              disabled={panel.kind === "import"}
              onClick={() => setPanel({ kind: "import" })}
            >
              {strings.importButton}
            </button>
          </div>
          {panel.kind === "form" ? (
            <McpServerForm
              key={panel.draft.previousName ?? "\u0000new"}
              initial={panel.draft}
              busy={busy}
              error={formError}
              onSave={save}
              onCancel={() => setPanel({ kind: "none" })}
            />
          ) : null}
          {panel.kind === "import" ? (
            <McpImport onImport={importChosen} onCancel={() => setPanel({ kind: "none" })} />
          ) : null}
          {view.servers.length === 0 ? (
            <p className="settings-note" data-testid="mcp-none">
              {strings.none(view.configFile ?? "mcp.json")}
            </p>
          ) : (
            <ul className="mcp-servers">
              {view.servers.map((server) => (
                <McpServerCard key={server.name} server={server} busy={busy} actions={actionsFor(server)} />
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
