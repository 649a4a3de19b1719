// Pure helpers of "Tools & servers": the add / edit form's draft (made from a server's view, turned into what
// save_mcp_server takes) and the state label a server shows.
import type { McpServerInput, McpValueInput } from "../../ipc/backend";
import type { McpServerState, McpServerView } from "../../ipc/wire";

/** The timeouts a server gets when its entry names none (desktop-host's defaults). */
export const DEFAULT_TIMEOUT_SECONDS = 60;
export const DEFAULT_TOTAL_TIMEOUT_SECONDS = 600;

/** A variable or header row of the form. `stored` says where the file keeps its value; the value is never shown. */
export interface ValueRow {
  id: number;
  name: string;
  /** What the user typed now; empty keeps the stored value. */
  value: string;
  stored: "keychain" | "file" | null;
}

export interface ServerDraft {
  /** The server's name when the form opened on it; null for a new one. */
  previousName: string | null;
  name: string;
  kind: "stdio" | "http";
  command: string;
  /** One argument per line. */
  args: string;
  cwd: string;
  env: ValueRow[];
  url: string;
  headers: ValueRow[];
  /** Seconds as typed; empty for the default. */
  timeout: string;
  totalTimeout: string;
  disabled: boolean;
}

let nextRowId = 1;

/** A fresh, empty row. */
export function newRow(): ValueRow {
  nextRowId += 1;
  return { id: nextRowId, name: "", value: "", stored: null };
}

/** The form of a new server: a program, enabled (it starts on save). */
export function emptyDraft(): ServerDraft {
  return {
    previousName: null,
    name: "",
    kind: "stdio",
    command: "",
    args: "",
    cwd: "",
    env: [],
    url: "",
    headers: [],
    timeout: "",
    totalTimeout: "",
    disabled: false,
  };
}

/** The form opened on `server`: its launch, its values' names (never their values), its timeouts. */
export function draftOf(server: McpServerView): ServerDraft {
  const rows = (values: { name: string; inKeychain: boolean }[]): ValueRow[] =>
    values.map((value) => ({ ...newRow(), name: value.name, stored: value.inKeychain ? "keychain" : "file" }));
  const custom = (value: number, fallback: number) => (value === fallback ? "" : String(value));
  const draft: ServerDraft = {
    ...emptyDraft(),
    previousName: server.name,
    name: server.name,
    timeout: custom(server.timeoutSeconds, DEFAULT_TIMEOUT_SECONDS),
    totalTimeout: custom(server.totalTimeoutSeconds, DEFAULT_TOTAL_TIMEOUT_SECONDS),
    disabled: server.status.state === "disabled",
  };
  const transport = server.transport;
  switch (transport.type) {
    case "stdio":
      return {
        ...draft,
        kind: "stdio",
        command: transport.command,
        args: transport.args.join("\n"),
        cwd: transport.cwd ?? "",
        env: rows(transport.env),
      };
    case "http":
      return { ...draft, kind: "http", url: transport.url, headers: rows(transport.headers) };
  }
}

/** What save_mcp_server takes. Empty lines and rows are dropped; an empty value keeps the stored one. */
export function serverInput(draft: ServerDraft): McpServerInput {
  const values = (rows: ValueRow[]): McpValueInput[] =>
    rows
      .filter((row) => row.name.trim() !== "" || row.value !== "")
      .map((row) => (row.value === "" ? { name: row.name.trim() } : { name: row.name.trim(), value: row.value }));
  const input: McpServerInput = {
    name: draft.name.trim(),
    disabled: draft.disabled,
    transport:
      draft.kind === "stdio"
        ? {
            type: "stdio",
            command: draft.command.trim(),
            args: draft.args
              .split("\n")
              .map((line) => line.trim())
              .filter((line) => line !== ""),
            env: values(draft.env),
            ...(draft.cwd.trim() === "" ? {} : { cwd: draft.cwd.trim() }),
          }
        : { type: "http", url: draft.url.trim(), headers: values(draft.headers) },
  };
  if (draft.previousName !== null) input.previousName = draft.previousName;
  const timeout = seconds(draft.timeout);
  if (timeout !== null) input.timeoutSeconds = timeout;
  const totalTimeout = seconds(draft.totalTimeout);
  if (totalTimeout !== null) input.totalTimeoutSeconds = totalTimeout;
  return input;
}

/** Whole seconds as typed; null for empty. Anything else goes as 0, which the host refuses naming the field. */
function seconds(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === "") return null;
  const value = Number(trimmed);
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/** The label of a state: its name, and which restart it is. */
export function stateLabel(
  status: McpServerState,
  names: Record<McpServerState["state"], string>,
  restartingAttempt: (attempt: number) => string,
): string {
  return status.state === "restarting" ? restartingAttempt(status.attempt) : names[status.state];
}
