// The add / edit form's draft: from a server's view (names of values only, defaults left empty) to what
// save_mcp_server takes (arguments one per line, empty values kept, the name it had), and the state label.
import { describe, expect, it } from "vitest";

import type { McpServerView } from "../../ipc/wire";
import { draftOf, emptyDraft, newRow, serverInput, stateLabel } from "./mcp-form";

const server: McpServerView = {
  name: "github",
  status: { state: "disabled" },
  launch: "npx -y gh-mcp",
  transport: {
    type: "stdio",
    command: "npx",
    args: ["-y", "gh-mcp"],
    cwd: "/home/ada/work",
    env: [
      { name: "GITHUB_TOKEN", inKeychain: true },
      { name: "DEBUG", inKeychain: false },
    ],
  },
  timeoutSeconds: 60,
  totalTimeoutSeconds: 900,
  tools: [],
  stderrTail: [],
  alwaysAllowed: [],
  alwaysAllowServer: false,
};

describe("the server form's draft", () => {
  it("opens on a server with the names of its values, never a value, and its non-default timeouts", () => {
    const draft = draftOf(server);

    expect(draft).toMatchObject({
      previousName: "github",
      name: "github",
      kind: "stdio",
      command: "npx",
      args: "-y\ngh-mcp",
      cwd: "/home/ada/work",
      timeout: "",
      totalTimeout: "900",
      disabled: true,
    });
    expect(draft.env.map((row) => [row.name, row.value, row.stored])).toEqual([
      ["GITHUB_TOKEN", "", "keychain"],
      ["DEBUG", "", "file"],
    ]);
  });

  it("saves arguments one per line, keeps values left empty, sends values typed and the name it had", () => {
    const draft = draftOf(server);
    const [token, debug] = draft.env;
    const input = serverInput({
      ...draft,
      name: " gh ",
      args: "-y\n\n  gh-mcp  \n",
      env: [{ ...token!, value: "ghp_new" }, debug!, { ...newRow(), name: "LOG", value: "1" }, newRow()],
    });

    expect(input).toEqual({
      name: "gh",
      previousName: "github",
      disabled: true,
      totalTimeoutSeconds: 900,
      transport: {
        type: "stdio",
        command: "npx",
        args: ["-y", "gh-mcp"],
        cwd: "/home/ada/work",
        env: [{ name: "GITHUB_TOKEN", value: "ghp_new" }, { name: "DEBUG" }, { name: "LOG", value: "1" }],
      },
    });
  });

  it("a new URL server has no previous name, no working folder and its headers", () => {
    const input = serverInput({
      ...emptyDraft(),
      name: "remote",
      kind: "http",
      url: " https://example.com/mcp ",
      command: "ignored",
      headers: [{ ...newRow(), name: "Authorization", value: "Bearer x" }],
      timeout: "abc",
    });

    expect(input).toEqual({
      name: "remote",
      disabled: false,
      timeoutSeconds: 0,
      transport: { type: "http", url: "https://example.com/mcp", headers: [{ name: "Authorization", value: "Bearer x" }] },
    });
  });

  it("labels a restart with its attempt", () => {
    const names = { disabled: "Disabled", starting: "Starting", ready: "Ready", failed: "Failed", restarting: "Restarting" };
    const attempt = (count: number) => `Restarting (${count})`;

    expect(stateLabel({ state: "restarting", attempt: 2 }, names, attempt)).toBe("Restarting (2)");
    expect(stateLabel({ state: "ready" }, names, attempt)).toBe("Ready");
  });
});
