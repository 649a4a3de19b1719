// Runs inside the page before the app (bundled by ./chat-support.ts and added as an init script):
// @tauri-apps/api/mocks stands in for the Rust backend of board/ipc-contract.md. The test drives each run
// explicitly: `__chatMock.send(envelope)` delivers one envelope on the run's Channel, `finish()` resolves the
// pending prompt / continue_run, `reject(error)` rejects it. Every call is recorded in `__chatMock.calls`.
import { mockIPC } from "@tauri-apps/api/mocks";

interface ChannelLike {
  id: number;
}

interface ChatMock {
  calls: { cmd: string; args: Record<string, unknown> }[];
  /** How the next prompt / continue_run answers: wait for the test (`hold`) or reject at once. */
  nextRunRejection: { kind: string; message: string } | null;
  send: (envelope: unknown) => void;
  finish: () => void;
  reject: (error: unknown) => void;
  hasRun: () => boolean;
  /**
   * The sidebar's data: the `list_conversations` answer and, per id, what `open_conversation` returns. Empty by
   * default; a test fills it before it reloads the list (New, or a page load after setting it in an init script).
   */
  conversations: { list: unknown; states: Record<string, unknown> };
}

declare global {
  interface Window {
    __chatMock: ChatMock;
    __TAURI_INTERNALS__: { runCallback: (id: number, data: unknown) => void };
  }
}

let channel: ChannelLike | null = null;
let nextIndex = 0;
let settle: ((value: null) => void) | null = null;
let fail: ((error: unknown) => void) | null = null;

let settings = {
  preset: "openai",
  api: "openai-responses",
  baseUrl: "https://api.openai.com/v1",
  model: "gpt-4.1-mini",
  thinkingLevel: "off",
  systemPrompt: "You are a desktop assistant. Use the tools for facts about this computer; never guess.",
  language: "auto",
  apiKeySet: false,
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
  model: { provider: "openai", id: "gpt-4.1-mini", name: "GPT-4.1 mini" },
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
  send(envelope) {
    if (channel === null) throw new Error("no run is waiting for envelopes");
    window.__TAURI_INTERNALS__.runCallback(channel.id, { index: nextIndex, message: envelope });
    nextIndex += 1;
  },
  finish() {
    settle?.(null);
    settle = null;
    fail = null;
  },
  reject(error) {
    fail?.(error);
    settle = null;
    fail = null;
  },
  hasRun() {
    return settle !== null;
  },
  conversations: {
    list: { days: [], activeId: null, streamingIds: [], storage: { persistent: true, notices: [] } },
    states: {},
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
    case "get_state":
    case "new_conversation":
      return emptyState;
    case "get_settings":
      return settings;
    case "save_settings":
      settings = { ...settings, ...(args["settings"] as object) };
      return settings;
    case "set_api_key":
      settings = { ...settings, apiKeySet: true };
      return settings;
    case "accept_key_file_fallback":
      settings = { ...settings, keyStorage: "file" };
      return settings;
    case "delete_api_key":
      settings = { ...settings, apiKeySet: false };
      return settings;
    case "abort":
      return null;
    case "list_conversations":
      return window.__chatMock.conversations.list;
    case "search_conversations":
      return [];
    case "open_conversation": {
      const state = window.__chatMock.conversations.states[String(args["conversationId"])];
      return state ?? Promise.reject({ kind: "invalid", message: "This conversation no longer exists." });
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
      channel = args["onEvent"] as ChannelLike;
      nextIndex = 0;
      return new Promise<null>((resolve, reject) => {
        settle = resolve;
        fail = reject;
      });
    }
    default:
      return Promise.reject({ kind: "invalid", message: `the mock backend has no command ${cmd}` });
  }
});
