// Runs inside the page before the app (bundled by setup-card.test.ts): a backend with nothing configured. No
// provider is usable, no local server answers, and Test connection of a custom server lists two models; Done
// makes the provider usable. Every call is recorded on `window.__setupCalls`.
import { mockIPC } from "@tauri-apps/api/mocks";

declare global {
  interface Window {
    __setupCalls: { cmd: string; args: Record<string, unknown> }[];
  }
}

window.__setupCalls = [];

const presets = [
  { id: "openai", label: "OpenAI", api: "openai-responses", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1-mini", needsKey: true },
  { id: "anthropic", label: "Anthropic", api: "anthropic-messages", baseUrl: "https://api.anthropic.com", model: "claude-sonnet-4-5", needsKey: true },
  { id: "deepseek", label: "DeepSeek", api: "openai-completions", baseUrl: "https://api.deepseek.com", model: "deepseek-chat", needsKey: true },
  { id: "openrouter", label: "OpenRouter", api: "openai-completions", baseUrl: "https://openrouter.ai/api/v1", model: "openai/gpt-4.1-mini", needsKey: true },
  { id: "qwen", label: "Qwen (DashScope)", api: "openai-completions", baseUrl: "https://dashscope.aliyuncs.com/compatible-mode/v1", model: "qwen-plus", needsKey: true },
  { id: "ollama", label: "Ollama (local)", api: "openai-completions", baseUrl: "http://127.0.0.1:11434/v1", model: "llama3.2", needsKey: false },
  { id: "llamacpp", label: "llama.cpp (local)", api: "openai-completions", baseUrl: "http://127.0.0.1:8080/v1", model: "default", needsKey: false },
  { id: "custom", label: "Custom, OpenAI-compatible", api: "openai-completions", baseUrl: "http://127.0.0.1:8000/v1", model: "default", needsKey: true },
];

const query = new URLSearchParams(window.location.search);
const language = query.get("lang") ?? "auto";
let settings: Record<string, unknown> = {
  preset: "",
  api: "",
  baseUrl: "",
  model: "",
  thinkingLevel: "off",
  systemPrompt: "",
  language,
  theme: query.get("theme") ?? "system",
  sendKey: "enter",
  notifications: true,
  closeToTray: false,
  startMinimized: false,
  quickAskShortcut: "",
  apiKeySet: false,
  keysStored: [],
  keyStorage: "keychain",
  presets,
};
let usable = false;

function model(id: string) {
  return { id, name: id, contextWindow: 32768, maxOutputTokens: 8192, imageInput: false, facts: "default" };
}

mockIPC((cmd, payload) => {
  const args = (payload ?? {}) as Record<string, unknown>;
  window.__setupCalls.push({ cmd, args: Object.fromEntries(Object.entries(args).filter(([key]) => key !== "onEvent")) });
  switch (cmd) {
    case "app_info":
      return { name: "Pi Desktop", version: "0.1.0", logDir: null, os: "linux", arch: "x86_64" };
    case "subscribe":
      return { runs: [] };
    case "get_state":
      if (!usable) return Promise.reject({ kind: "settings", code: "settings_unusable", detail: "Nothing is configured." });
      return {
        conversationId: "c-1",
        isStreaming: false,
        pendingToolCalls: [],
        messages: [],
        model: { provider: "custom", id: String(settings["model"]), name: String(settings["model"]) },
        thinkingLevel: "off",
      };
    case "list_conversations":
      return { days: [], activeId: null, more: false, streamingIds: [], storage: { persistent: true, notices: [] } };
    case "get_settings":
      return settingsView();
    case "provider_status":
      return usable
        ? { status: "usable", provider: "custom", model: settings["model"] }
        : {
            status: "unusable",
            message: "Nothing is configured: choose a provider in Settings, or start Ollama at http://127.0.0.1:11434/v1.",
          };
    case "detect_local_servers":
      return [];
    case "test_connection":
      return {
        ok: true,
        url: "http://127.0.0.1:9000/v1/models",
        route: "direct",
        elapsedMs: 14,
        models: [model("house-model"), model("house-model-small")],
      };
    case "set_api_key":
      settings = { ...settings, keysStored: [args["preset"]] };
      return settingsView();
    case "save_settings":
      settings = { ...settings, ...(args["settings"] as object) };
      usable = true;
      return settingsView();
    case "list_models":
      return { models: [model("house-model"), model("house-model-small")], origin: "server" };
    case "set_conversation_model":
      return null;
    default:
      return Promise.reject({ kind: "invalid", code: "invalid_input", detail: `the setup mock backend has no command ${cmd}` });
  }
});

/** The settings as the host returns them; its locale is the page's (a test may set navigator.language later). */
function settingsView(): Record<string, unknown> {
  return { ...settings, systemLanguage: navigator.language.toLowerCase().startsWith("zh") ? "zh" : "en" };
}
