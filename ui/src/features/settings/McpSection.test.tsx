// @vitest-environment jsdom
// "Tools & servers" against a mocked ipc/backend: each server with its state and command line, a failed one with
// its reason and last output, the tools with the server's claims, the file's problems, and no servers at all.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { McpServersView } from "../../ipc/wire";

const ipc = vi.hoisted(() => ({
  mcpServers: vi.fn(),
  revokeMcpGrant: vi.fn(),
  toCommandError: (error: unknown) => error,
}));
vi.mock("../../ipc/backend", () => ipc);

import { McpSection } from "./McpSection";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;

beforeEach(() => {
  ipc.mcpServers.mockReset();
  ipc.revokeMcpGrant.mockReset();
  container = document.createElement("div");
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

async function render(view: McpServersView) {
  ipc.mcpServers.mockResolvedValue(view);
  await act(async () => {
    root.render(<McpSection />);
    await Promise.resolve();
  });
}

const servers = (state: string) => [...container.querySelectorAll(`[data-testid="mcp-server"][data-state="${state}"]`)];

describe("Tools & servers", () => {
  it("lists each server with its state, command line and tools, and a failed one with why", async () => {
    await render({
      configFile: "/home/ada/.config/pi-desktop/mcp.json",
      servers: [
        {
          name: "files",
          status: { state: "ready" },
          launch: "node /opt/fs/dist/index.js /home/ada/Documents",
          tools: [
            { name: "read_text_file", description: "Read a file", readOnlyClaim: true, destructiveClaim: false },
            { name: "write_file", description: "Write a file", readOnlyClaim: false, destructiveClaim: true },
          ],
          stderrTail: [],
          alwaysAllowed: ["read_text_file"],
          alwaysAllowServer: false,
        },
        {
          name: "broken",
          status: { state: "failed", reason: "MCP server \"broken\" did not start: no answer within 30 s" },
          launch: "uvx broken-server",
          tools: [],
          stderrTail: ["Traceback (most recent call last):", "ModuleNotFoundError: yaml"],
          alwaysAllowed: [],
          alwaysAllowServer: false,
        },
      ],
      problems: ["MCP server \"half\", field \"args\": invalid type: string, expected a sequence"],
    });

    const [files] = servers("ready");
    expect(files?.getAttribute("data-name")).toBe("files");
    expect(files?.textContent).toContain("node /opt/fs/dist/index.js /home/ada/Documents");
    expect(files?.textContent).toContain("the server says: read-only");
    expect(files?.textContent).toContain("the server says: may change or delete data");
    const [broken] = servers("failed");
    expect(broken?.textContent).toContain("no answer within 30 s");
    expect(broken?.querySelector(".mcp-stderr")?.textContent).toBe(
      "Traceback (most recent call last):\nModuleNotFoundError: yaml",
    );
    expect(container.querySelector(".mcp-problem")?.textContent).toContain("field \"args\"");
  });

  it("without servers says where mcp.json goes and what it looks like", async () => {
    await render({ configFile: "/home/ada/.config/pi-desktop/mcp.json", servers: [], problems: [] });

    expect(container.querySelector('[data-testid="mcp-none"]')?.textContent).toContain(
      "/home/ada/.config/pi-desktop/mcp.json",
    );
    expect(container.querySelectorAll('[data-testid="mcp-server"]')).toHaveLength(0);
  });

  it("lists the always grants, and Revoke asks the host and shows what it answers", async () => {
    const server = {
      name: "files",
      status: { state: "ready" as const },
      launch: "node fs.js",
      tools: [],
      stderrTail: [],
      alwaysAllowed: ["read_text_file"],
      alwaysAllowServer: true,
    };
    await render({ configFile: null, servers: [server], problems: [] });
    ipc.revokeMcpGrant.mockResolvedValue({
      configFile: null,
      servers: [{ ...server, alwaysAllowServer: false }],
      problems: [],
    });

    const grants = [...container.querySelectorAll('[data-testid="mcp-grant"]')];
    expect(grants.map((grant) => grant.getAttribute("data-tool"))).toEqual(["", "read_text_file"]);
    await act(async () => {
      grants[0]?.querySelector<HTMLButtonElement>('[data-testid="revoke-grant"]')?.click();
      await Promise.resolve();
    });

    expect(ipc.revokeMcpGrant).toHaveBeenCalledWith("files", undefined);
    expect([...container.querySelectorAll('[data-testid="mcp-grant"]')].map((grant) => grant.getAttribute("data-tool"))).toEqual([
      "read_text_file",
    ]);
  });
});
