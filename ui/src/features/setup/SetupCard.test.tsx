// @vitest-environment jsdom
// The setup card against a mocked IPC: a local server that answers is offered first and Done saves it with the
// chosen model; a custom OpenAI-compatible server with a key lists its models after Test connection, and Done
// stores the key for that provider before the settings name it; a failed test says what failed and offers no Done.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { StringsContext } from "../../i18n/I18n";
import { STRINGS } from "../../i18n/strings";
import type { ModelEntry } from "../../ipc/models";
import type { SettingsView } from "../../ipc/wire";

const backend = vi.hoisted(() => ({
  getSettings: vi.fn(),
  saveSettings: vi.fn(),
  setApiKey: vi.fn(),
  toCommandError: (error: unknown) => error,
}));
const models = vi.hoisted(() => ({
  detectLocalServers: vi.fn(),
  testConnection: vi.fn(),
}));
vi.mock("../../ipc/backend", () => backend);
vi.mock("../../ipc/models", () => models);

import { SetupCard } from "./SetupCard";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const nothingConfigured: SettingsView = {
  preset: "",
  api: "",
  baseUrl: "",
  model: "",
  thinkingLevel: "off",
  systemPrompt: "",
  language: "auto",
  systemLanguage: "en",
  theme: "system",
  sendKey: "enter",
  notifications: true,
  closeToTray: false,
  startMinimized: false,
  quickAskShortcut: "",
  apiKeySet: false,
  keysStored: [],
  keyStorage: "keychain",
  presets: [
    { id: "openai", label: "OpenAI", api: "openai-responses", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1-mini", needsKey: true },
    { id: "ollama", label: "Ollama (local)", api: "openai-completions", baseUrl: "http://127.0.0.1:11434/v1", model: "llama3.2", needsKey: false },
    { id: "custom", label: "Custom, OpenAI-compatible", api: "openai-completions", baseUrl: "http://127.0.0.1:8000/v1", model: "default", needsKey: true },
  ],
};

function model(id: string): ModelEntry {
  return { id, name: id, contextWindow: 128000, maxOutputTokens: 16384, imageInput: false, facts: "default" };
}

let container: HTMLDivElement;
let root: Root;
const onConfigured = vi.fn();

beforeEach(() => {
  for (const mock of [...Object.values(backend), ...Object.values(models)]) if ("mockReset" in mock) mock.mockReset();
  onConfigured.mockReset();
  backend.getSettings.mockResolvedValue(nothingConfigured);
  backend.saveSettings.mockImplementation((input: object) => Promise.resolve({ ...nothingConfigured, ...input }));
  backend.setApiKey.mockImplementation((_key: string, preset: string) =>
    Promise.resolve({ ...nothingConfigured, keysStored: [preset] }),
  );
  container = document.createElement("div");
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

async function settle() {
  for (let round = 0; round < 4; round += 1) {
    await act(async () => {
      await Promise.resolve();
    });
  }
}

async function render() {
  await act(async () => {
    root.render(
      <StringsContext.Provider value={STRINGS.en}>
        <SetupCard onConfigured={onConfigured} />
      </StringsContext.Provider>,
    );
  });
  await settle();
}

const byTestId = <T extends HTMLElement>(id: string) => container.querySelector<T>(`[data-testid="${id}"]`);

function change(element: HTMLInputElement | HTMLSelectElement, value: string) {
  const prototype = element instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  act(() => {
    Object.getOwnPropertyDescriptor(prototype, "value")?.set?.call(element, value);
    element.dispatchEvent(new Event(element instanceof HTMLSelectElement ? "change" : "input", { bubbles: true }));
  });
}

describe("setup card", () => {
  it("offers a local Ollama that answers first and saves it with the chosen model", async () => {
    models.detectLocalServers.mockResolvedValue([
      { preset: "ollama", baseUrl: "http://127.0.0.1:11434/v1", models: [model("qwen3:8b"), model("llama3.2")] },
    ]);
    await render();

    expect(byTestId("local-server")?.textContent).toContain("Ollama (local) answers on this computer (2 models)");
    expect(byTestId<HTMLSelectElement>("setup-preset")?.value).toBe("ollama");
    const options = [...container.querySelectorAll('[data-testid="setup-model-option"]')].map((option) => option.textContent);
    expect(options).toEqual(["qwen3:8b", "llama3.2"]);
    change(byTestId<HTMLSelectElement>("setup-model") as HTMLSelectElement, "llama3.2");

    await act(async () => byTestId("setup-done")?.click());
    await settle();

    expect(backend.setApiKey).not.toHaveBeenCalled();
    expect(backend.saveSettings).toHaveBeenCalledWith(
      expect.objectContaining({ preset: "ollama", api: "openai-completions", baseUrl: "http://127.0.0.1:11434/v1", model: "llama3.2" }),
    );
    expect(onConfigured).toHaveBeenCalledTimes(1);
  });

  it("lists a custom server's models after Test connection and stores its key for that provider", async () => {
    models.detectLocalServers.mockResolvedValue([]);
    models.testConnection.mockResolvedValue({
      ok: true,
      url: "http://127.0.0.1:9000/v1/models",
      route: "direct",
      elapsedMs: 12,
      models: [model("house-model"), model("house-model-small")],
    });
    await render();

    expect(byTestId("local-server")).toBeNull();
    change(byTestId<HTMLSelectElement>("setup-preset") as HTMLSelectElement, "custom");
    change(byTestId<HTMLInputElement>("setup-base-url") as HTMLInputElement, "http://127.0.0.1:9000/v1");
    change(byTestId<HTMLInputElement>("setup-api-key") as HTMLInputElement, " sk-house ");
    expect(byTestId("setup-model")).toBeNull();

    await act(async () => byTestId("test-connection")?.click());
    await settle();

    expect(models.testConnection).toHaveBeenCalledWith({
      preset: "custom",
      api: "openai-completions",
      baseUrl: "http://127.0.0.1:9000/v1",
      apiKey: "sk-house",
    });
    expect(byTestId("connection-report")?.textContent).toBe("Connected: 2 models (12 ms).");
    expect(byTestId<HTMLSelectElement>("setup-model")?.value).toBe("house-model");

    await act(async () => byTestId("setup-done")?.click());
    await settle();

    expect(backend.setApiKey).toHaveBeenCalledWith("sk-house", "custom");
    expect(backend.saveSettings).toHaveBeenCalledWith(
      expect.objectContaining({ preset: "custom", baseUrl: "http://127.0.0.1:9000/v1", model: "house-model" }),
    );
    expect(backend.setApiKey.mock.invocationCallOrder[0]).toBeLessThan(backend.saveSettings.mock.invocationCallOrder[0] ?? 0);
    expect(onConfigured).toHaveBeenCalledTimes(1);
  });

  it("says what failed when the test fails and offers no Done without a model", async () => {
    models.detectLocalServers.mockResolvedValue([]);
    models.testConnection.mockResolvedValue({
      ok: false,
      problem: { kind: "unauthorized", message: "The server refused the key (401). Check the key and try again." },
      url: "https://api.openai.com/v1/models",
      route: "direct",
      elapsedMs: 40,
      models: [],
    });
    await render();
    change(byTestId<HTMLInputElement>("setup-api-key") as HTMLInputElement, "sk-wrong");

    await act(async () => byTestId("test-connection")?.click());
    await settle();

    expect(byTestId("connection-report")?.dataset["ok"]).toBe("false");
    expect(byTestId("connection-report")?.textContent).toContain("refused the key");
    expect(byTestId<HTMLButtonElement>("setup-done")?.disabled).toBe(true);
  });
});
