// "Tools & servers" in the settings: every MCP server of mcp.json with its state, the exact command line it
// runs, its tools (with what the server claims about them), the reason and last output of one that failed, and
// what was wrong with the file. Read when the panel opens.
import { useEffect, useState } from "react";

import { useStrings } from "../../i18n/I18n";
import { mcpServers, revokeMcpGrant, toCommandError } from "../../ipc/backend";
import type { CommandError, McpServersView } from "../../ipc/wire";

export function McpSection() {
  const strings = useStrings().mcp;
  const [view, setView] = useState<McpServersView | null>(null);
  const [error, setError] = useState<CommandError | null>(null);

  useEffect(() => {
    let current = true;
    mcpServers().then(
      (loaded) => {
        if (current) setView(loaded);
      },
      (failure: unknown) => {
        if (current) setError(toCommandError(failure));
      },
    );
    return () => {
      current = false;
    };
  }, []);

  const revoke = (server: string, tool?: string) => {
    revokeMcpGrant(server, tool).then(setView, (failure: unknown) => setError(toCommandError(failure)));
  };

  return (
    <section className="mcp-section" data-testid="mcp-settings" aria-labelledby="mcp-heading">
      <h3 id="mcp-heading">{strings.title}</h3>
      <p className="settings-note">{strings.intro}</p>
      {error !== null ? (
        <p className="settings-error" role="alert">
          {error.message}
        </p>
      ) : null}
      {view === null ? null : (
        <>
          {view.problems.map((problem) => (
            <p key={problem} className="mcp-problem" role="alert">
              {problem}
            </p>
          ))}
          {view.servers.length === 0 ? (
            <p className="settings-note" data-testid="mcp-none">
              {strings.none(view.configFile ?? "mcp.json")}
            </p>
          ) : (
            <ul className="mcp-servers">
              {view.servers.map((server) => (
                <li key={server.name} className="mcp-server" data-testid="mcp-server" data-name={server.name} data-state={server.status.state}>
                  <div className="mcp-server-head">
                    <strong>{server.name}</strong>
                    <span className={`mcp-state ${server.status.state}`}>{strings.state[server.status.state]}</span>
                  </div>
                  <code className="mcp-launch">{server.launch}</code>
                  {server.status.state === "failed" ? <p className="mcp-reason">{server.status.reason}</p> : null}
                  {server.tools.length > 0 ? (
                    <ul className="mcp-tools">
                      {server.tools.map((tool) => (
                        <li key={tool.name}>
                          <code>{tool.name}</code>
                          {tool.destructiveClaim ? (
                            <span className="mcp-claim destructive">{strings.destructiveClaim}</span>
                          ) : tool.readOnlyClaim ? (
                            <span className="mcp-claim">{strings.readOnlyClaim}</span>
                          ) : null}
                          {tool.description !== "" ? <span className="mcp-tool-description">{tool.description}</span> : null}
                        </li>
                      ))}
                    </ul>
                  ) : null}
                  {server.alwaysAllowServer || server.alwaysAllowed.length > 0 ? (
                    <ul className="mcp-grants">
                      {server.alwaysAllowServer ? (
                        <li data-testid="mcp-grant" data-tool="">
                          <span>{strings.grantServer}</span>
                          <button type="button" data-testid="revoke-grant" onClick={() => revoke(server.name)}>
                            {strings.revoke}
                          </button>
                        </li>
                      ) : null}
                      {server.alwaysAllowed.map((tool) => (
                        <li key={tool} data-testid="mcp-grant" data-tool={tool}>
                          <span>{strings.grantTool(tool)}</span>
                          <button type="button" data-testid="revoke-grant" onClick={() => revoke(server.name, tool)}>
                            {strings.revoke}
                          </button>
                        </li>
                      ))}
                    </ul>
                  ) : null}
                  {server.stderrTail.length > 0 && server.status.state === "failed" ? (
                    <pre className="mcp-stderr">{server.stderrTail.join("\n")}</pre>
                  ) : null}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
