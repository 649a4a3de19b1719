// @vitest-environment jsdom
// "Connection" against a mocked ipc/connection: the stored values shown, a manual proxy saved with its URL, a
// value the host refuses said with the host's message, and the texts in Chinese.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { StringsContext } from "../../i18n/I18n";
import { STRINGS } from "../../i18n/strings";
import type { ConnectionSettings } from "../../ipc/connection";

const ipc = vi.hoisted(() => ({
  connectionSettings: vi.fn(),
  saveConnectionSettings: vi.fn(),
}));
vi.mock("../../ipc/connection", () => ipc);
vi.mock("../../ipc/backend", () => ({ toCommandError: (error: unknown) => error }));

import { ConnectionSection } from "./ConnectionSection";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;

const stored: ConnectionSettings = {
  idleTimeoutSeconds: 120,
  headTimeoutSeconds: 120,
  maxRetries: 3,
  maxRetryDelaySeconds: 60,
  proxy: { mode: "system" },
  proxyPasswordSet: false,
};

beforeEach(() => {
  ipc.connectionSettings.mockReset();
  ipc.saveConnectionSettings.mockReset();
  container = document.createElement("div");
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

async function render(language: "en" | "zh" = "en", value: ConnectionSettings = stored) {
  ipc.connectionSettings.mockResolvedValue(value);
  await act(async () => {
    root.render(
      <StringsContext.Provider value={STRINGS[language]}>
        <ConnectionSection />
      </StringsContext.Provider>,
    );
    await Promise.resolve();
  });
}

const field = <T extends HTMLElement>(testId: string) => {
  const found = container.querySelector<T>(`[data-testid="${testId}"]`);
  if (found === null) throw new Error(`no ${testId}`);
  return found;
};

/** Sets a React-controlled input's value the way typing does. */
function type(element: HTMLInputElement | HTMLSelectElement, value: string) {
  const prototype = element instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(prototype, "value")?.set?.call(element, value);
  element.dispatchEvent(new Event(element instanceof HTMLSelectElement ? "change" : "input", { bubbles: true }));
}

describe("the connection settings", () => {
  it("show what the host keeps and save a manual proxy with its URL", async () => {
    await render();
    expect(field<HTMLInputElement>("idle-timeout").value).toBe("120");
    expect(field<HTMLInputElement>("max-retries").value).toBe("3");
    expect(container.querySelector('[data-testid="proxy-url"]')).toBeNull();

    ipc.saveConnectionSettings.mockImplementation((settings: ConnectionSettings) => Promise.resolve(settings));
    act(() => type(field<HTMLSelectElement>("proxy-mode"), "manual"));
    act(() => type(field<HTMLInputElement>("proxy-url"), " socks5://127.0.0.1:1080 "));
    act(() => type(field<HTMLInputElement>("idle-timeout"), "30"));
    await act(async () => {
      field<HTMLButtonElement>("save-connection").click();
      await Promise.resolve();
    });

    expect(ipc.saveConnectionSettings).toHaveBeenCalledWith({
      ...stored,
      idleTimeoutSeconds: 30,
      proxy: { mode: "manual", url: "socks5://127.0.0.1:1080" },
    });
    expect(container.textContent).toContain("Saved. New requests use them.");
    expect(field<HTMLElement>("proxy-password-note").textContent).toBe(STRINGS.en.connectionSettings.proxyPasswordHint);
  });

  it("say that a proxy password is kept in the keychain, without showing it", async () => {
    await render("en", {
      ...stored,
      proxy: { mode: "manual", url: "http://alice@proxy.corp:3128/" },
      proxyPasswordSet: true,
    });
    expect(field<HTMLInputElement>("proxy-url").value).toBe("http://alice@proxy.corp:3128/");
    expect(field<HTMLElement>("proxy-password-note").textContent).toBe(STRINGS.en.connectionSettings.proxyPasswordKept);
  });

  it("say why the host refused a value, and speak Chinese", async () => {
    await render("zh");
    expect(container.textContent).toContain("连接");
    ipc.saveConnectionSettings.mockRejectedValue({ kind: "invalid", code: "invalid_value", detail: "idleTimeoutSeconds must be 5 to 3600" });
    await act(async () => {
      field<HTMLButtonElement>("save-connection").click();
      await Promise.resolve();
    });
    const alert = container.querySelector('[role="alert"]');
    expect(alert?.querySelector(".error-text")?.textContent).toBe(STRINGS.zh.errorCodes.invalid_value);
    expect(alert?.querySelector(".error-detail")?.textContent).toBe("idleTimeoutSeconds must be 5 to 3600");
  });
});
