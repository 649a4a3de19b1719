// Runs inside the page before the app (bundled by ./chat-support.ts and added as an init script):
// @tauri-apps/api/mocks stands in for the Rust backend of board/ipc-contract.md. Like the host, it keeps the
// window's one stream (the Channel of `subscribe`), accepts `prompt` / `continue_run` at once with a run id, and
// numbers each conversation's envelopes. The test drives each run explicitly: `__chatMock.send(envelope)`
// delivers one envelope on the window's stream, stamped with the active conversation, the run in progress and
// the conversation's next `seq`; the run ends with its `idle`. Every call is recorded in `__chatMock.calls`.
import { mockIPC } from "@tauri-apps/api/mocks";

interface ChannelLike {
  id: number;
}

interface ChatMock {
  calls: { cmd: string; args: Record<string, unknown> }[];
  /** The next prompt / continue_run is refused with this error instead of accepted. */
  nextRunRejection: { kind: string; code: string; detail?: string } | null;
  /** What `subscribe` answers: the runs in progress (empty by default; set it in an init script). */
  snapshotRuns: unknown[];
  /** The active conversation: what prompt and get_state act on, and whose envelopes `send` sends between runs. */
  activeId: string;
  send: (envelope: unknown) => void;
  /** Kept for the tests' step "the host is done with the run": the run already ended with its idle. */
  finish: () => void;
  /** A run was accepted and its idle not sent yet. */
  hasRun: () => boolean;
  /**
   * The sidebar's data: the `list_conversations` answer and, per id, what `open_conversation` returns. Empty by
   * default; a test fills it before it reloads the list (New, or a page load after setting it in an init script).
   */
  conversations: { list: unknown; states: Record<string, unknown> };
  /** What `mcp_servers` answers (no servers by default). */
  mcpServers: unknown;
  /**
   * What `show_version`, `delete_message_pair` and `restore_messages` answer, in order (each call takes the
   * first); `regenerate`, `edit_message` and `continue_answer` start a run as `prompt` does, refused with
   * `run_active` while one is in progress.
   */
  versionAnswers: unknown[];
  /** The session's model as `get_state` reports it (context window, image input, price known). */
  model: { provider: string; id: string; api: string; contextWindow: number; imageInput: boolean; priced: boolean };
  /** Sends the window a backend event (as `emit_to` in src-tauri) to every listener of `event`. */
  emit: (event: string, payload: unknown) => void;
}

declare global {
  interface Window {
    __chatMock: ChatMock;
    __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void };
  }
}

let channel: ChannelLike | null = null;
/** The window's event listeners (`listen` of @tauri-apps/api/event). */
let listeners: { event: string; id: number; handler: number }[] = [];
let nextIndex = 0;
let lastRunId = 0;
let runId: number | null = null;
/** The conversation of the run in progress (it stays its own when the user switches). */
let runConversation = "c-1";
let newConversations = 1;
const seqs: Record<string, number> = {};

// The page's query may choose the settings' language, theme and send key (`?lang=zh&theme=dark&sendKey=ctrlEnter`).
const query = new URLSearchParams(window.location.search);

let settings = {
  preset: "openai",
  api: "openai-responses",
  baseUrl: "https://api.openai.com/v1",
  model: "gpt-4.1-mini",
  thinkingLevel: "off",
  systemPrompt: "You are a desktop assistant. Use the tools for facts about this computer; never guess.",
  language: query.get("lang") ?? "auto",
  theme: query.get("theme") ?? "system",
  sendKey: query.get("sendKey") ?? "enter",
  notifications: true,
  closeToTray: false,
  startMinimized: false,
  quickAskShortcut: "",
  apiKeySet: false,
  keysStored: [] as string[],
  keyStorage: "keychain",
  presets: [
    { id: "openai", label: "OpenAI", api: "openai-responses", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1-mini", needsKey: true },
    { id: "anthropic", label: "Anthropic", api: "anthropic-messages", baseUrl: "https://api.anthropic.com", model: "claude-sonnet-4-5", needsKey: true },
    { id: "deepseek", label: "DeepSeek", api: "openai-completions", baseUrl: "https://api.deepseek.com/v1", model: "deepseek-chat", needsKey: true },
    { id: "ollama", label: "Ollama (local)", api: "openai-completions", baseUrl: "http://127.0.0.1:11434/v1", model: "qwen3:8b", needsKey: false },
  ],
};

const emptyState = {
  isStreaming: false,
  pendingToolCalls: [],
  messages: [],
};

/** The recorded arguments, without the Channel object (not serialisable across the page boundary). */
function recordable(args: Record<string, unknown> | undefined): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args ?? {})) {
    if (key !== "onEvent") copy[key] = value;
  }
  return copy;
}

window.__chatMock = {
  calls: [],
  nextRunRejection: null,
  snapshotRuns: [],
  activeId: "c-1",
  send(envelope) {
    if (channel === null) throw new Error("the window has not subscribed to its stream");
    const conversationId = runId === null ? window.__chatMock.activeId : runConversation;
    const seq = (seqs[conversationId] ?? 0) + 1;
    seqs[conversationId] = seq;
    const stamped: Record<string, unknown> = { ...(envelope as object), conversationId, seq };
    if (runId !== null) stamped["runId"] = runId;
    window.__TAURI_INTERNALS__.runCallback(channel.id, { index: nextIndex, message: stamped });
    nextIndex += 1;
    const notice = (envelope as { notice?: { type?: string } }).notice;
    if (notice?.type === "idle") runId = null;
  },
  finish() {},
  hasRun() {
    return runId !== null;
  },
  conversations: {
    list: { days: [], activeId: null, more: false, streamingIds: [], storage: { persistent: true, notices: [] } },
    states: {},
  },
  mcpServers: { configFile: "/home/ada/.config/pi-desktop/mcp.json", servers: [], problems: [] },
  versionAnswers: [],
  model: { provider: "openai", id: "gpt-4.1-mini", api: "openai-responses", contextWindow: 1_047_576, imageInput: true, priced: true },
  emit(event, payload) {
    for (const listener of listeners.filter((candidate) => candidate.event === event)) {
      window.__TAURI_INTERNALS__.runCallback(listener.handler, { event, id: listener.id, payload });
    }
  },
};

mockIPC((cmd, payload) => {
  const args = (payload ?? {}) as Record<string, unknown>;
  window.__chatMock.calls.push({ cmd, args: recordable(args) });
  switch (cmd) {
    case "app_info":
      return {
        name: "Pi Desktop",
        version: "0.1.0",
        logDir: "/home/ada/.local/share/dev.pi.desktop/logs",
        os: "linux",
        arch: "x86_64",
      };
    case "subscribe":
      channel = args["onEvent"] as ChannelLike;
      return { runs: window.__chatMock.snapshotRuns };
    case "get_state":
      return { ...emptyState, model: window.__chatMock.model, conversationId: window.__chatMock.activeId };
    case "new_conversation":
      newConversations += 1;
      window.__chatMock.activeId = `c-new-${newConversations}`;
      return { ...emptyState, model: window.__chatMock.model, conversationId: window.__chatMock.activeId };
    case "read_attachment":
      return readAttachment(String(args["name"]), String(args["data"]));
    case "get_settings":
      return settingsView();
    case "save_settings":
      settings = { ...settings, ...(args["settings"] as object) };
      return settingsView();
    case "set_api_key":
      settings = { ...settings, apiKeySet: true, keysStored: [String(args["preset"] ?? settings.preset)] };
      return settingsView();
    case "accept_key_file_fallback":
      settings = { ...settings, keyStorage: "file" };
      return settingsView();
    case "delete_api_key":
      settings = { ...settings, apiKeySet: false, keysStored: [] };
      return settingsView();
    case "abort":
    case "resolve_approval":
      return null;
    case "quick_ask_shortcut_status":
      return { shortcut: "Ctrl+Alt+Space", registered: true };
    case "autostart_enabled":
      return false;
    case "set_autostart":
      return Boolean(args["enabled"]);
    case "plugin:event|listen": {
      const id = listeners.length + 1;
      listeners.push({ event: String(args["event"]), id, handler: Number(args["handler"]) });
      return id;
    }
    case "plugin:event|unlisten":
      listeners = listeners.filter((listener) => listener.id !== Number(args["eventId"]));
      return null;
    case "mcp_servers":
    case "subscribe_mcp_servers":
      return window.__chatMock.mcpServers;
    case "list_conversations":
      return window.__chatMock.conversations.list;
    case "search_conversations":
      return [];
    case "open_conversation": {
      const id = String(args["conversationId"]);
      const state = window.__chatMock.conversations.states[id];
      if (state === undefined) {
        return Promise.reject({ kind: "invalid", code: "conversation_gone", detail: "no conversation with that id" });
      }
      window.__chatMock.activeId = id;
      return { ...(state as object), conversationId: id };
    }
    case "restore_conversation":
      return null;
    case "prompt":
    case "continue_run": {
      const rejection = window.__chatMock.nextRunRejection;
      if (rejection !== null) {
        window.__chatMock.nextRunRejection = null;
        return Promise.reject(rejection);
      }
      if (runId !== null) {
        return Promise.reject({
          kind: "busy",
          code: "busy",
          detail: "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.",
        });
      }
      lastRunId += 1;
      runId = lastRunId;
      runConversation = window.__chatMock.activeId;
      return { conversationId: window.__chatMock.activeId, runId };
    }
    case "regenerate":
    case "edit_message":
    case "continue_answer":
      if (runId !== null) {
        return Promise.reject({
          kind: "busy",
          code: "run_active",
          detail: "a run is active: wait until the answer is complete, or stop it, before changing versions or messages",
        });
      }
      lastRunId += 1;
      runId = lastRunId;
      runConversation = window.__chatMock.activeId;
      return { conversationId: window.__chatMock.activeId, runId };
    case "show_version":
    case "delete_message_pair":
    case "restore_messages": {
      const answer = window.__chatMock.versionAnswers.shift();
      return answer === undefined
        ? Promise.reject({ kind: "invalid", code: "not_on_branch", detail: "no scripted answer" })
        : answer;
    }
    case "plugin:opener|open_url":
      return null;
    case "fetch_image":
      return String(args["url"]).endsWith("/broken.png")
        ? Promise.reject({ kind: "invalid", code: "image_refused", detail: "example.com sent text/html, not a PNG, JPEG, GIF or WebP image" })
        : "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    default:
      return Promise.reject({ kind: "invalid", code: "invalid_input", detail: `the mock backend has no command ${cmd}` });
  }
});

/**
 * What the host's `read_attachment` answers, on a small scale: a PDF named `scan…` has no text layer, bytes
 * starting with "MZ" (a program) are refused, anything else is read as UTF-8 text.
 */
function readAttachment(name: string, data: string): unknown {
  const bytes = Uint8Array.from(atob(data), (character) => character.charCodeAt(0));
  if (name.endsWith(".pdf") && name.startsWith("scan")) {
    return Promise.reject({
      kind: "invalid",
      code: "attachment_no_text",
      detail: `${name} has no text layer (it may be a scanned document), so there is no text to attach`,
    });
  }
  if (bytes[0] === 0x4d && bytes[1] === 0x5a) {
    return Promise.reject({ kind: "invalid", code: "attachment_unsupported", detail: `${name} is not a PDF, text, Markdown or code file` });
  }
  const text = new TextDecoder().decode(bytes);
  return { name, format: name.endsWith(".md") ? "markdown" : "text", text, totalChars: text.length, truncated: false };
}

/** The settings as the host returns them; its locale is the page's (a test may set navigator.language later). */
function settingsView(): Record<string, unknown> {
  return { ...settings, systemLanguage: navigator.language.toLowerCase().startsWith("zh") ? "zh" : "en" };
}
