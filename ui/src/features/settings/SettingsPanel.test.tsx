// @vitest-environment jsdom
// The settings panel's API key section against a mocked ipc/backend: without a keychain it says so and offers
// the private key file; the key field works only after the user confirms; with the file it notes where keys are.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { KeyStorageView, SettingsView } from "../../ipc/wire";

const ipc = vi.hoisted(() => ({
  getSettings: vi.fn(),
  saveSettings: vi.fn(),
  setApiKey: vi.fn(),
  deleteApiKey: vi.fn(),
  acceptKeyFileFallback: vi.fn(),
  fetchAppInfo: vi.fn(),
  mcpServers: vi.fn(),
  subscribeMcpServers: vi.fn(),
  approvalSettings: vi.fn(),
  conversationGrants: vi.fn(),
  queueSettings: vi.fn(),
  saveQueueSettings: vi.fn(),
  autostartEnabled: vi.fn(),
  setAutostart: vi.fn(),
  openLogFolder: vi.fn(),
  toCommandError: (error: unknown) => error,
}));
vi.mock("../../ipc/backend", () => ipc);
const quickAskIpc = vi.hoisted(() => ({ quickAskShortcutStatus: vi.fn() }));
vi.mock("../../ipc/quick-ask", () => quickAskIpc);

import { SettingsPanel } from "./SettingsPanel";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function settingsView(keyStorage: KeyStorageView, apiKeySet = false): SettingsView {
  return {
    preset: "openai",
    api: "openai-responses",
    baseUrl: "https://api.openai.com/v1",
    model: "gpt-4.1",
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
    apiKeySet,
    keysStored: apiKeySet ? ["openai"] : [],
    keyStorage,
    presets: [
      { id: "openai", label: "OpenAI", api: "openai-responses", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1", needsKey: true },
    ],
  };
}

let container: HTMLDivElement;
let root: Root;

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

async function renderPanel(view: SettingsView) {
  ipc.getSettings.mockResolvedValue(view);
  ipc.fetchAppInfo.mockResolvedValue({ name: "Pi Desktop", version: "0.1.0", logDir: "/logs", os: "linux", arch: "x86_64" });
  ipc.mcpServers.mockResolvedValue({ configFile: null, servers: [], problems: [] });
  ipc.subscribeMcpServers.mockResolvedValue({ configFile: null, servers: [], problems: [] });
  ipc.approvalSettings.mockResolvedValue({ askBeforeBuiltInTools: false });
  ipc.conversationGrants.mockResolvedValue([]);
  ipc.queueSettings.mockResolvedValue({ steeringMode: "one_at_a_time", followUpMode: "one_at_a_time" });
  ipc.autostartEnabled.mockResolvedValue(false);
  quickAskIpc.quickAskShortcutStatus.mockResolvedValue({ shortcut: "Ctrl+Alt+Space", registered: true });
  await act(async () => {
    root.render(<SettingsPanel initial={view} onSaved={vi.fn()} onClose={vi.fn()} />);
  });
  await act(async () => {
    await Promise.resolve();
  });
}

function byTestId(id: string): HTMLElement | null {
  return container.querySelector<HTMLElement>(`[data-testid="${id}"]`);
}

describe("settings panel key storage", () => {
  it("without a keychain says so, offers the private file, and the key field works only after consent", async () => {
    await renderPanel(settingsView("unavailable"));

    const keyInput = byTestId("settings-api-key") as HTMLInputElement;
    expect(byTestId("key-storage-offer")?.textContent).toContain("keychain is not reachable");
    expect(keyInput.disabled).toBe(true);
    expect(byTestId("key-storage-file")).toBeNull();

    ipc.acceptKeyFileFallback.mockResolvedValue(settingsView("file"));
    await act(async () => {
      byTestId("accept-key-file")?.click();
    });
    await act(async () => {
      await Promise.resolve();
    });

    expect(ipc.acceptKeyFileFallback).toHaveBeenCalledTimes(1);
    expect(byTestId("key-storage-offer")).toBeNull();
    expect(byTestId("key-storage-file")?.textContent).toContain("private file");
    expect((byTestId("settings-api-key") as HTMLInputElement).disabled).toBe(false);
  });

  it("with the keychain shows neither the offer nor the file note", async () => {
    await renderPanel(settingsView("keychain", true));

    expect(byTestId("key-storage-offer")).toBeNull();
    expect(byTestId("key-storage-file")).toBeNull();
    expect((byTestId("settings-api-key") as HTMLInputElement).disabled).toBe(false);
    expect(ipc.acceptKeyFileFallback).not.toHaveBeenCalled();
  });
});

describe("settings panel about section", () => {
  it("shows the version and log folder that app_info returns below the settings", async () => {
    await renderPanel(settingsView("keychain"));

    const about = byTestId("about-section");
    expect(about?.querySelector("h3")?.textContent).toBe("About");
    expect(byTestId("about-version")?.textContent).toBe("0.1.0");
    expect(byTestId("about-log-dir")?.textContent).toBe("/logs");
    expect(ipc.fetchAppInfo).toHaveBeenCalledTimes(1);
    // After the form: the settings come first.
    const form = container.querySelector("form.settings-form");
    expect(form?.compareDocumentPosition(about as Node)).toBe(Node.DOCUMENT_POSITION_FOLLOWING);
  });
});

describe("settings panel key per provider", () => {
  it("describes and saves the key of the provider the form shows, not the saved one, and keeps the form", async () => {
    const view: SettingsView = {
      ...settingsView("keychain", true),
      keysStored: ["openai"],
      presets: [
        { id: "openai", label: "OpenAI", api: "openai-responses", baseUrl: "https://api.openai.com/v1", model: "gpt-4.1", needsKey: true },
        { id: "deepseek", label: "DeepSeek", api: "openai-completions", baseUrl: "https://api.deepseek.com", model: "deepseek-chat", needsKey: true },
      ],
    };
    await renderPanel(view);
    const preset = byTestId("settings-preset") as HTMLSelectElement;
    act(() => {
      Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, "value")?.set?.call(preset, "deepseek");
      preset.dispatchEvent(new Event("change", { bubbles: true }));
    });

    expect(byTestId("api-key-status")?.dataset["set"]).toBe("false");
    expect(byTestId("api-key-status")?.textContent).toContain("Key for DeepSeek");

    ipc.setApiKey.mockResolvedValue({ ...view, keysStored: ["openai", "deepseek"] });
    const key = byTestId("settings-api-key") as HTMLInputElement;
    act(() => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set?.call(key, "sk-deepseek");
      key.dispatchEvent(new Event("input", { bubbles: true }));
    });
    const save = [...container.querySelectorAll("button")].find((button) => button.textContent === "Save key");
    await act(async () => save?.click());
    await act(async () => {
      await Promise.resolve();
    });

    expect(ipc.setApiKey).toHaveBeenCalledWith("sk-deepseek", "deepseek");
    expect((byTestId("settings-preset") as HTMLSelectElement).value).toBe("deepseek");
    expect(byTestId("api-key-status")?.dataset["set"]).toBe("true");
    expect(byTestId("test-connection")).not.toBeNull();
  });
});

describe("settings panel notifications and tray", () => {
  it("shows the stored choices and saves notifications off and close to tray on with the rest of the form", async () => {
    const view = settingsView("keychain", true);
    await renderPanel(view);
    const toggle = byTestId("settings-notifications") as HTMLInputElement;
    expect(toggle.checked).toBe(true);
    expect(toggle.closest("label")?.textContent).toContain("Notify me when an answer is ready");

    ipc.saveSettings.mockResolvedValue({ ...view, notifications: false });
    act(() => toggle.click());
    expect(toggle.checked).toBe(false);
    const tray = byTestId("settings-close-to-tray") as HTMLInputElement;
    expect(tray.checked).toBe(false);
    act(() => tray.click());
    act(() => (byTestId("settings-start-minimized") as HTMLInputElement).click());
    const form = byTestId("settings-save")?.closest("form");
    await act(async () => form?.requestSubmit());
    await act(async () => {
      await Promise.resolve();
    });

    expect(ipc.saveSettings).toHaveBeenCalledWith(expect.objectContaining({ notifications: false, closeToTray: true, startMinimized: true, sendKey: "enter" }));
  });
});

describe("settings panel autostart", () => {
  it("reads whether the app starts at login and changes it at once, outside the form", async () => {
    ipc.setAutostart.mockResolvedValueOnce(true);
    ipc.setAutostart.mockRejectedValueOnce({ kind: "storage", code: "settings_not_saved", detail: "~/.config/autostart is read-only" });
    await renderPanel(settingsView("keychain", true));
    const autostart = byTestId("settings-autostart") as HTMLInputElement;
    expect(autostart.checked).toBe(false);
    expect(autostart.disabled).toBe(false);

    await act(async () => autostart.click());
    expect(ipc.setAutostart).toHaveBeenCalledWith(true);
    expect(autostart.checked).toBe(true);
    expect(ipc.saveSettings).not.toHaveBeenCalled();

    await act(async () => autostart.click());
    expect(ipc.setAutostart).toHaveBeenLastCalledWith(false);
    expect(byTestId("settings-autostart-error")?.textContent).toContain("~/.config/autostart is read-only");
    expect(autostart.checked).toBe(true);
  });
});

describe("settings panel quick-ask shortcut", () => {
  it("saves the shortcut typed and says when another program holds it", async () => {
    const view = settingsView("keychain", true);
    await renderPanel(view);
    expect(byTestId("settings-quick-ask-status")?.textContent).toBe(
      "Ctrl+Alt+Space opens the quick-ask window from anywhere.",
    );

    quickAskIpc.quickAskShortcutStatus.mockResolvedValue({
      shortcut: "Ctrl+Shift+K",
      registered: false,
      problem: "Ctrl+Shift+K cannot be used (another program may hold it): already registered",
    });
    ipc.saveSettings.mockResolvedValue({ ...view, quickAskShortcut: "Ctrl+Shift+K" });
    const input = byTestId("settings-quick-ask-shortcut") as HTMLInputElement;
    act(() => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set?.call(input, "Ctrl+Shift+K");
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    const form = byTestId("settings-save")?.closest("form");
    await act(async () => form?.requestSubmit());
    await act(async () => {
      await Promise.resolve();
    });

    expect(ipc.saveSettings).toHaveBeenCalledWith(expect.objectContaining({ quickAskShortcut: "Ctrl+Shift+K" }));
    const status = byTestId("settings-quick-ask-status");
    expect(status?.getAttribute("role")).toBe("alert");
    expect(status?.textContent).toContain("another program may hold it");
  });
});
