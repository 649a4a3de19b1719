// Runs inside the page after the chat mock backend (bundled by ./mcp-settings.test.ts and added as the second init
// script): it answers the "Tools & servers" commands the way the host does — every command answers with the whole
// view, and later changes (a server that becomes ready) are pushed on the Channel of `subscribe_mcp_servers` — and
// hands everything else to the chat mock. The test sets `window.__mcpMock.view`, `.candidates` and `.language`
// before the settings open, and reads `.calls`.

interface ChannelLike {
  id: number;
}

interface ServerLike {
  name: string;
  status: { state: string; attempt?: number; reason?: string };
  launch: string;
  transport: unknown;
  timeoutSeconds: number;
  totalTimeoutSeconds: number;
  tools: { name: string; description: string; readOnlyClaim: boolean; destructiveClaim: boolean; enabled: boolean }[];
  stderrTail: string[];
  alwaysAllowed: string[];
  alwaysAllowServer: boolean;
}

interface ViewLike {
  configFile: string | null;
  servers: ServerLike[];
  problems: string[];
}

interface McpMock {
  view: ViewLike;
  candidates: { files: unknown[]; candidates: { source: string; name: string; launch?: string }[] };
  /** The UI language `get_settings` reports. */
  language: "en" | "zh";
  calls: { cmd: string; args: Record<string, unknown> }[];
  /** How long a started server takes to become ready (its tools then are `readyTools`). */
  readyAfterMs: number;
  readyTools: ServerLike["tools"];
  /** Sends the view as it is now on the subscribed Channel. */
  push: () => void;
}

declare global {
  interface Window {
    __mcpMock: McpMock;
  }
}

/** What mockIPC put in place (the chat mock declares only the part it uses). */
const internals = (
  window as unknown as {
    __TAURI_INTERNALS__: {
      invoke: (cmd: string, args?: Record<string, unknown>, options?: unknown) => Promise<unknown>;
      runCallback: (id: number, data: unknown) => void;
    };
  }
).__TAURI_INTERNALS__;

let channel: ChannelLike | null = null;
let nextIndex = 0;

window.__mcpMock = {
  view: { configFile: "/home/ada/.config/pi-desktop/mcp.json", servers: [], problems: [] },
  candidates: { files: [], candidates: [] },
  language: "en",
  calls: [],
  readyAfterMs: 400,
  readyTools: [],
  push() {
    if (channel === null) return;
    internals.runCallback(channel.id, { index: nextIndex, message: structuredClone(window.__mcpMock.view) });
    nextIndex += 1;
  },
};

// What the test set for this tab before it reloaded.
const stored = sessionStorage.getItem("mcpMock");
if (stored !== null) Object.assign(window.__mcpMock, JSON.parse(stored) as Partial<McpMock>);

const mock = () => window.__mcpMock;
const find = (name: unknown) => mock().view.servers.find((server) => server.name === name);

/** `server` starts now and is ready after `readyAfterMs`, when the window hears of it. */
function start(server: ServerLike) {
  server.status = { state: "starting" };
  setTimeout(() => {
    if (server.status.state !== "starting") return;
    server.status = { state: "ready" };
    server.tools = structuredClone(mock().readyTools);
    mock().push();
  }, mock().readyAfterMs);
}

function launchOf(input: { transport: { type: string; command?: string; args?: string[]; url?: string } }): string {
  const transport = input.transport;
  return transport.type === "stdio" ? [transport.command ?? "", ...(transport.args ?? [])].join(" ") : (transport.url ?? "");
}

function save(input: Record<string, unknown>): ServerLike {
  const typed = input as {
    name: string;
    previousName?: string;
    disabled: boolean;
    transport: { type: string; command?: string; args?: string[]; url?: string; env?: { name: string }[]; headers?: { name: string }[] };
  };
  const values = (typed.transport.env ?? typed.transport.headers ?? []).map((value) => ({ name: value.name, inKeychain: true }));
  const server: ServerLike = {
    name: typed.name,
    status: { state: "disabled" },
    launch: launchOf(typed),
    transport:
      typed.transport.type === "stdio"
        ? { type: "stdio", command: typed.transport.command, args: typed.transport.args, env: values }
        : { type: "http", url: typed.transport.url, headers: values },
    timeoutSeconds: 60,
    totalTimeoutSeconds: 600,
    tools: [],
    stderrTail: [],
    alwaysAllowed: [],
    alwaysAllowServer: false,
  };
  const servers = mock().view.servers;
  const index = servers.findIndex((other) => other.name === (typed.previousName ?? typed.name));
  if (index === -1) servers.push(server);
  else servers[index] = server;
  if (!typed.disabled) start(server);
  return server;
}

const inner = internals.invoke;

internals.invoke = async (cmd, args = {}, options) => {
  const answer = (): unknown => structuredClone(mock().view);
  switch (cmd) {
    case "subscribe_mcp_servers":
      channel = args["onChange"] as ChannelLike;
      return answer();
    case "mcp_servers":
      return answer();
    case "get_settings":
      return { ...((await inner(cmd, args, options)) as object), language: mock().language };
    case "approval_settings":
      return { askBeforeBuiltInTools: false };
    case "conversation_grants":
      return [];
    default:
      break;
  }
  if (!cmd.includes("mcp")) return inner(cmd, args, options);
  mock().calls.push({ cmd, args: structuredClone(args) });
  switch (cmd) {
    case "save_mcp_server":
      save(args["server"] as Record<string, unknown>);
      return answer();
    case "remove_mcp_server":
      mock().view.servers = mock().view.servers.filter((server) => server.name !== args["name"]);
      return answer();
    case "set_mcp_server_enabled": {
      const server = find(args["name"]);
      if (server === undefined) break;
      if (args["enabled"] === true) start(server);
      else server.status = { state: "disabled" };
      return answer();
    }
    case "set_mcp_tool_enabled": {
      const tool = find(args["server"])?.tools.find((candidate) => candidate.name === args["tool"]);
      if (tool !== undefined) tool.enabled = args["enabled"] === true;
      return answer();
    }
    case "restart_mcp_server": {
      const server = find(args["name"]);
      if (server !== undefined) start(server);
      return answer();
    }
    case "mcp_import_candidates":
      return structuredClone(mock().candidates);
    case "import_mcp_servers": {
      for (const choice of args["chosen"] as { source: string; name: string }[]) {
        const candidate = mock().candidates.candidates.find((other) => other.source === choice.source && other.name === choice.name);
        mock().view.servers.push({
          name: choice.name,
          status: { state: "disabled" },
          launch: candidate?.launch ?? "",
          transport: { type: "stdio", command: "", args: [], env: [] },
          timeoutSeconds: 60,
          totalTimeoutSeconds: 600,
          tools: [],
          stderrTail: [],
          alwaysAllowed: [],
          alwaysAllowServer: false,
        });
      }
      return answer();
    }
    default:
      break;
  }
  return Promise.reject({ kind: "invalid", code: "invalid_input", detail: `the MCP mock has no answer to ${cmd}` });
};

export {};
