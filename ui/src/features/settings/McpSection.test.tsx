// @vitest-environment jsdom
// "Tools & servers" against a mocked ipc/backend: each server with its state (followed live), command line, tools
// and their toggles, a failed one with its reason and last output, the file's problems, no servers at all; the add
// form (values go to the keychain, never shown), edit, remove after asking, enable, restart, and the import.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { McpServersView, McpServerView } from "../../ipc/wire";

const ipc = vi.hoisted(() => ({
  subscribeMcpServers: vi.fn(),
  saveMcpServer: vi.fn(),
  removeMcpServer: vi.fn(),
  setMcpServerEnabled: vi.fn(),
  setMcpToolEnabled: vi.fn(),
  restartMcpServer: vi.fn(),
  revokeMcpGrant: vi.fn(),
  mcpImportCandidates: vi.fn(),
  importMcpServers: vi.fn(),
  toCommandError: (error: unknown) => error,
}));
vi.mock("../../ipc/backend", () => ipc);

import { McpSection } from "./McpSection";
import { STRINGS } from "../../i18n/strings";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
/** What the host pushes after a change, as the section subscribed. */
let push: (view: McpServersView) => void;

beforeEach(() => {
  for (const mock of Object.values(ipc)) if ("mockReset" in mock) mock.mockReset();
  container = document.createElement("div");
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

async function settle() {
  await act(async () => {
    await Promise.resolve();
    await Promise.resolve();
  });
}

async function render(view: McpServersView) {
  ipc.subscribeMcpServers.mockImplementation((onChange: (view: McpServersView) => void) => {
    push = (next) => act(() => onChange(next));
    return Promise.resolve(view);
  });
  await act(async () => {
    root.render(<McpSection />);
    await Promise.resolve();
  });
}

function stdioServer(name: string, patch: Partial<McpServerView> = {}): McpServerView {
  return {
    name,
    status: { state: "ready" },
    launch: `node /opt/${name}/index.js`,
    transport: { type: "stdio", command: "node", args: [`/opt/${name}/index.js`], env: [] },
    timeoutSeconds: 60,
    totalTimeoutSeconds: 600,
    tools: [],
    stderrTail: [],
    alwaysAllowed: [],
    alwaysAllowServer: false,
    ...patch,
  };
}

const views = (servers: McpServerView[]): McpServersView => ({
  configFile: "/home/ada/.config/pi-desktop/mcp.json",
  servers,
  problems: [],
});

const byTestId = <T extends HTMLElement = HTMLElement>(id: string, within: ParentNode = container) =>
  within.querySelector<T>(`[data-testid="${id}"]`);
const server = (name: string) => container.querySelector<HTMLElement>(`[data-testid="mcp-server"][data-name="${name}"]`);

async function click(element: HTMLElement | null) {
  expect(element).not.toBeNull();
  await act(async () => {
    element?.click();
    await Promise.resolve();
  });
  await settle();
}

/** Types into an input as a user would (React listens to the native input event). */
function type(element: HTMLInputElement | HTMLTextAreaElement | null, value: string) {
  expect(element).not.toBeNull();
  if (element === null) return;
  const setter = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(element), "value")?.set;
  act(() => {
    setter?.call(element, value);
    element.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

describe("Tools & servers", () => {
  it("lists each server with its state, command line and tools, and a failed one with why", async () => {
    await render({
      configFile: "/home/ada/.config/pi-desktop/mcp.json",
      servers: [
        stdioServer("files", {
          launch: "node /opt/fs/dist/index.js /home/ada/Documents",
          tools: [
            { name: "read_text_file", description: "Read a file", readOnlyClaim: true, destructiveClaim: false, enabled: true },
            { name: "write_file", description: "Write a file", readOnlyClaim: false, destructiveClaim: true, enabled: false },
          ],
          alwaysAllowed: ["read_text_file"],
        }),
        stdioServer("broken", {
          status: { state: "failed", reason: "MCP server \"broken\" did not start: no answer within 30 s" },
          launch: "uvx broken-server",
          stderrTail: ["Traceback (most recent call last):", "ModuleNotFoundError: yaml"],
        }),
      ],
      problems: ["MCP server \"half\", field \"args\": invalid type: string, expected a sequence"],
    });

    const files = server("files");
    expect(files?.getAttribute("data-state")).toBe("ready");
    expect(files?.textContent).toContain("node /opt/fs/dist/index.js /home/ada/Documents");
    expect(files?.textContent).toContain("the server says: read-only");
    expect(files?.textContent).toContain("the server says: may change or delete data");
    const tools = [...(files?.querySelectorAll<HTMLElement>('[data-testid="mcp-tool"]') ?? [])];
    expect(tools.map((tool) => [tool.dataset["name"], byTestId<HTMLInputElement>("mcp-tool-toggle", tool)?.checked])).toEqual([
      ["read_text_file", true],
      ["write_file", false],
    ]);
    expect(tools[0]?.textContent).toContain("Read a file");
    expect(byTestId("mcp-stderr", files ?? container)).toBeNull();
    const broken = server("broken");
    expect(broken?.getAttribute("data-state")).toBe("failed");
    expect(broken?.textContent).toContain("no answer within 30 s");
    expect(byTestId("mcp-stderr", broken ?? container)?.textContent).toBe(
      "Traceback (most recent call last):\nModuleNotFoundError: yaml",
    );
    expect(container.querySelector(".mcp-problem")?.textContent).toContain("field \"args\"");
    expect(byTestId("mcp-unsupported")?.textContent).toContain("sampling, elicitation and roots");
  });

  it("without servers says where mcp.json is and offers add and import", async () => {
    await render(views([]));

    expect(byTestId("mcp-none")?.textContent).toContain("/home/ada/.config/pi-desktop/mcp.json");
    expect(container.querySelectorAll('[data-testid="mcp-server"]')).toHaveLength(0);
    expect(byTestId("mcp-add")).not.toBeNull();
    expect(byTestId("mcp-import")).not.toBeNull();
  });

  it("follows the host's pushes: starting, ready, restarting with its attempt", async () => {
    await render(views([stdioServer("everything", { status: { state: "starting" } })]));
    expect(server("everything")?.getAttribute("data-state")).toBe("starting");

    push(views([stdioServer("everything", { status: { state: "restarting", attempt: 2 } })]));

    expect(server("everything")?.getAttribute("data-state")).toBe("restarting");
    expect(byTestId("mcp-state", server("everything") ?? container)?.textContent).toBe("Restarting (2)");
    push(views([stdioServer("everything")]));
    expect(server("everything")?.getAttribute("data-state")).toBe("ready");
  });

  it("a command's answer older than a pushed view does not replace it", async () => {
    await render(views([stdioServer("everything", { status: { state: "disabled" } })]));
    let answer: (view: McpServersView) => void = () => {};
    ipc.setMcpServerEnabled.mockReturnValue(new Promise<McpServersView>((resolve) => (answer = resolve)));

    await click(byTestId("mcp-enable"));
    push(views([stdioServer("everything")]));
    await act(async () => {
      answer(views([stdioServer("everything", { status: { state: "starting" } })]));
      await Promise.resolve();
    });

    expect(ipc.setMcpServerEnabled).toHaveBeenCalledWith("everything", true);
    expect(server("everything")?.getAttribute("data-state")).toBe("ready");
  });

  it("adds a program with arguments one per line and a variable whose value goes to the host, never shown again", async () => {
    await render(views([]));
    await click(byTestId("mcp-add"));
    const form = byTestId("mcp-server-form");
    expect(form).not.toBeNull();
    expect(form?.textContent).toContain("go to the system keychain");
    type(byTestId<HTMLInputElement>("mcp-form-name"), "everything");
    type(byTestId<HTMLInputElement>("mcp-form-command"), "/usr/bin/node");
    type(byTestId<HTMLTextAreaElement>("mcp-form-args"), "/opt/everything/dist/index.js\nstdio\n");
    await click(byTestId("mcp-form-add-value"));
    type(byTestId<HTMLInputElement>("mcp-form-value-name"), "API_KEY");
    type(byTestId<HTMLInputElement>("mcp-form-value-value"), "s3cret");
    expect(byTestId<HTMLInputElement>("mcp-form-value-value")?.type).toBe("password");
    const saved = stdioServer("everything", {
      status: { state: "starting" },
      transport: { type: "stdio", command: "/usr/bin/node", args: [], env: [{ name: "API_KEY", inKeychain: true }] },
    });
    ipc.saveMcpServer.mockResolvedValue(views([saved]));

    await click(byTestId("mcp-form-save"));

    expect(ipc.saveMcpServer).toHaveBeenCalledWith({
      name: "everything",
      disabled: false,
      transport: {
        type: "stdio",
        command: "/usr/bin/node",
        args: ["/opt/everything/dist/index.js", "stdio"],
        env: [{ name: "API_KEY", value: "s3cret" }],
      },
    });
    expect(byTestId("mcp-server-form")).toBeNull();
    expect(server("everything")?.getAttribute("data-state")).toBe("starting");

    await click(byTestId("mcp-edit"));
    const value = byTestId<HTMLInputElement>("mcp-form-value-value");
    expect(value?.value).toBe("");
    expect(value?.placeholder).toBe("kept in the keychain");
    expect(container.innerHTML).not.toContain("s3cret");
  });

  it("a refused save keeps the form open with the host's message naming the field", async () => {
    await render(views([]));
    await click(byTestId("mcp-add"));
    ipc.saveMcpServer.mockRejectedValue({
      kind: "invalid",
      code: "mcp_entry_invalid",
      detail: "MCP server \"\", field \"name\": is empty; give the server a name",
    });

    await click(byTestId("mcp-form-save"));

    expect(byTestId("mcp-server-form")).not.toBeNull();
    expect(byTestId("mcp-form-error")?.textContent).toBe(
      `${STRINGS.en.errorCodes.mcp_entry_invalid}MCP server "", field "name": is empty; give the server a name`,
    );
  });

  it("edits a URL server under a new name, keeping its stored header", async () => {
    await render(
      views([
        stdioServer("remote", {
          launch: "https://example.com/mcp",
          transport: { type: "http", url: "https://example.com/mcp", headers: [{ name: "X-Team", inKeychain: false }] },
        }),
      ]),
    );
    await click(byTestId("mcp-edit"));
    expect(byTestId<HTMLInputElement>("mcp-form-kind-http")?.checked).toBe(true);
    expect(byTestId<HTMLInputElement>("mcp-form-value-value")?.placeholder).toContain("written in mcp.json");
    type(byTestId<HTMLInputElement>("mcp-form-name"), "team");
    ipc.saveMcpServer.mockResolvedValue(views([]));

    await click(byTestId("mcp-form-save"));

    expect(ipc.saveMcpServer).toHaveBeenCalledWith({
      name: "team",
      previousName: "remote",
      disabled: false,
      transport: { type: "http", url: "https://example.com/mcp", headers: [{ name: "X-Team" }] },
    });
  });

  it("removes a server only after asking, turns a tool off, and restarts", async () => {
    const tool = { name: "get-sum", description: "Adds", readOnlyClaim: false, destructiveClaim: false, enabled: true };
    await render(views([stdioServer("everything", { tools: [tool] })]));
    ipc.setMcpToolEnabled.mockResolvedValue(views([stdioServer("everything", { tools: [{ ...tool, enabled: false }] })]));
    ipc.restartMcpServer.mockResolvedValue(views([stdioServer("everything", { status: { state: "starting" } })]));
    ipc.removeMcpServer.mockResolvedValue(views([]));

    await click(byTestId("mcp-tool-toggle"));
    expect(ipc.setMcpToolEnabled).toHaveBeenCalledWith("everything", "get-sum", false);
    expect(byTestId<HTMLInputElement>("mcp-tool-toggle")?.checked).toBe(false);
    await click(byTestId("mcp-restart"));
    expect(ipc.restartMcpServer).toHaveBeenCalledWith("everything");
    await click(byTestId("mcp-remove"));
    expect(ipc.removeMcpServer).not.toHaveBeenCalled();
    expect(container.querySelector('[role="alertdialog"]')?.textContent).toContain("Remove “everything”?");
    await click(byTestId("mcp-remove-confirm"));

    expect(ipc.removeMcpServer).toHaveBeenCalledWith("everything");
    expect(byTestId("mcp-none")).not.toBeNull();
  });

  it("imports the chosen candidates, which arrive disabled with their command line and an enable toggle", async () => {
    await render(views([stdioServer("github")]));
    ipc.mcpImportCandidates.mockResolvedValue({
      files: [
        { source: "claude_desktop", path: "/home/ada/.config/Claude/claude_desktop_config.json", found: true },
        { source: "cursor", path: "/home/ada/.cursor/mcp.json", found: false },
      ],
      candidates: [
        { source: "claude_desktop", name: "filesystem", launch: "npx -y @modelcontextprotocol/server-filesystem '/home/ada/My Documents'", problems: [], nameTaken: false },
        { source: "claude_desktop", name: "github", launch: "npx -y gh-mcp", problems: [], nameTaken: true },
        { source: "claude_desktop", name: "broken", problems: ["MCP server \"broken\", field \"args\": not a list"], nameTaken: false },
      ],
    });
    ipc.importMcpServers.mockResolvedValue(
      views([
        stdioServer("github"),
        stdioServer("filesystem", {
          status: { state: "disabled" },
          launch: "npx -y @modelcontextprotocol/server-filesystem '/home/ada/My Documents'",
        }),
      ]),
    );

    await click(byTestId("mcp-import"));

    const candidates = [...container.querySelectorAll<HTMLElement>('[data-testid="mcp-import-candidate"]')];
    expect(candidates.map((candidate) => [candidate.dataset["name"], byTestId<HTMLInputElement>("mcp-import-choose", candidate)?.disabled])).toEqual([
      ["filesystem", false],
      ["github", true],
      ["broken", true],
    ]);
    expect(candidates[0]?.textContent).toContain("'/home/ada/My Documents'");
    expect(candidates[1]?.textContent).toContain("exists already");
    expect(candidates[2]?.textContent).toContain("not a list");
    expect(byTestId<HTMLButtonElement>("mcp-import-confirm")?.disabled).toBe(true);
    await click(byTestId("mcp-import-choose", candidates[0]));
    await click(byTestId("mcp-import-confirm"));

    expect(ipc.importMcpServers).toHaveBeenCalledWith([{ source: "claude_desktop", name: "filesystem" }]);
    expect(byTestId("mcp-import-panel")).toBeNull();
    const imported = server("filesystem");
    expect(imported?.getAttribute("data-state")).toBe("disabled");
    expect(imported?.textContent).toContain("npx -y @modelcontextprotocol/server-filesystem '/home/ada/My Documents'");
    expect(byTestId<HTMLInputElement>("mcp-enable", imported ?? container)?.checked).toBe(false);
  });

  it("lists the always grants, and Revoke asks the host and shows what it answers", async () => {
    const granted = stdioServer("files", { alwaysAllowed: ["read_text_file"], alwaysAllowServer: true });
    await render(views([granted]));
    ipc.revokeMcpGrant.mockResolvedValue(views([{ ...granted, alwaysAllowServer: false }]));

    const grants = [...container.querySelectorAll('[data-testid="mcp-grant"]')];
    expect(grants.map((grant) => grant.getAttribute("data-tool"))).toEqual(["", "read_text_file"]);
    await click(grants[0]?.querySelector<HTMLButtonElement>('[data-testid="revoke-grant"]') ?? null);

    expect(ipc.revokeMcpGrant).toHaveBeenCalledWith("files", undefined);
    expect([...container.querySelectorAll('[data-testid="mcp-grant"]')].map((grant) => grant.getAttribute("data-tool"))).toEqual([
      "read_text_file",
    ]);
  });
});
