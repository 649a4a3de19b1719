import { describe, expect, it } from "vitest";

import type { SettingsView } from "../../ipc/wire";
import { applyPreset, keySection, keyStoredFor, settingsInput } from "./settings-form";

const view: SettingsView = {
  preset: "openai",
  api: "openai-responses",
  baseUrl: "https://api.openai.com/v1",
  model: "gpt-4.1",
  thinkingLevel: "off",
  systemPrompt: "Be brief.",
  language: "auto",
  systemLanguage: "en",
  theme: "dark",
  sendKey: "ctrlEnter",
  notifications: false,
  closeToTray: true,
  startMinimized: true,
  quickAskShortcut: "Ctrl+Shift+K",
  apiKeySet: true,
  keysStored: ["openai"],
  keyStorage: "keychain",
  presets: [
    { id: "openai", label: "OpenAI", api: "openai-responses", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1", needsKey: true },
    { id: "ollama", label: "Ollama", api: "openai-completions", baseUrl: "http://127.0.0.1:11434/v1", model: "qwen3", needsKey: false },
  ],
};

describe("settings form", () => {
  it("offers the private key file only when no keychain answers, and notes the file once accepted", () => {
    expect(keySection({ keyStorage: "keychain" })).toBe("keychain");
    expect(keySection({ keyStorage: "unavailable" })).toBe("offerFile");
    expect(keySection({ keyStorage: "file" })).toBe("file");
  });

  it("edits only what save_settings takes (never the key state or presets)", () => {
    expect(settingsInput(view)).toEqual({
      preset: "openai",
      api: "openai-responses",
      baseUrl: "https://api.openai.com/v1",
      model: "gpt-4.1",
      thinkingLevel: "off",
      systemPrompt: "Be brief.",
      language: "auto",
      theme: "dark",
      sendKey: "ctrlEnter",
      notifications: false,
      closeToTray: true,
      startMinimized: true,
      quickAskShortcut: "Ctrl+Shift+K",
    });
  });

  it("picking a preset fills its API, base URL and model and keeps the rest", () => {
    expect(applyPreset(settingsInput(view), view.presets, "ollama")).toEqual({
      preset: "ollama",
      api: "openai-completions",
      baseUrl: "http://127.0.0.1:11434/v1",
      model: "qwen3",
      thinkingLevel: "off",
      systemPrompt: "Be brief.",
      language: "auto",
      theme: "dark",
      sendKey: "ctrlEnter",
      notifications: false,
      closeToTray: true,
      startMinimized: true,
      quickAskShortcut: "Ctrl+Shift+K",
    });
  });
});

describe("the key status", () => {
  it("describes the provider the form shows, not the saved one", () => {
    const view = { apiKeySet: true, keysStored: ["openai", "custom"] };
    expect(keyStoredFor(view, "custom")).toBe(true);
    expect(keyStoredFor(view, "deepseek")).toBe(false);
    expect(keyStoredFor({ apiKeySet: false, keysStored: ["custom"] }, "")).toBe(false);
  });
});
