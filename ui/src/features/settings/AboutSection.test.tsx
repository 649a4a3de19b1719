// @vitest-environment jsdom
// The About section against a mocked ipc/backend and a fake clipboard: what it shows, in English and Chinese,
// what the Copy button puts on the clipboard, and the button that opens the log folder.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { StringsContext } from "../../i18n/I18n";
import { STRINGS } from "../../i18n/strings";
import type { AppInfo } from "../../ipc/wire";
import type { ClipboardHost } from "./about";

const ipc = vi.hoisted(() => ({
  fetchAppInfo: vi.fn(),
  openLogFolder: vi.fn(),
  toCommandError: (error: unknown) => error,
}));
vi.mock("../../ipc/backend", () => ipc);

import { AboutSection } from "./AboutSection";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const INFO: AppInfo = {
  name: "Pi Desktop",
  version: "0.3.1",
  logDir: "/home/ada/.local/share/dev.pi.desktop/logs",
  os: "linux",
  arch: "x86_64",
};

let container: HTMLDivElement;
let root: Root;

beforeEach(() => {
  ipc.fetchAppInfo.mockReset();
  ipc.openLogFolder.mockReset();
  container = document.createElement("div");
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

async function render(info: AppInfo, options: { language?: "en" | "zh"; clipboard?: ClipboardHost } = {}) {
  ipc.fetchAppInfo.mockResolvedValue(info);
  await act(async () => {
    root.render(
      <StringsContext.Provider value={STRINGS[options.language ?? "en"]}>
        <AboutSection clipboard={options.clipboard} />
      </StringsContext.Provider>,
    );
  });
}

function byTestId(id: string): HTMLElement | null {
  return container.querySelector<HTMLElement>(`[data-testid="${id}"]`);
}

async function clickCopy() {
  await act(async () => {
    byTestId("about-copy")?.click();
  });
}

describe("about section", () => {
  it("shows the name, version, description, platform and log folder", async () => {
    await render(INFO);

    const text = byTestId("about-section")?.textContent ?? "";
    expect(text).toContain("Pi Desktop");
    expect(byTestId("about-version")?.textContent).toBe("0.3.1");
    expect(text).toContain(STRINGS.en.appDescription);
    expect(byTestId("about-platform")?.textContent).toBe("linux x86_64");
    expect(byTestId("about-log-dir")?.textContent).toBe("/home/ada/.local/share/dev.pi.desktop/logs");
  });

  it("says the log folder is unknown when the backend names none", async () => {
    await render({ ...INFO, logDir: null });

    expect(byTestId("about-log-dir")?.textContent).toBe(STRINGS.en.logFolderUnknown);
  });

  it("speaks Chinese when the UI does", async () => {
    await render(INFO, { language: "zh" });

    expect(byTestId("about-section")?.querySelector("h3")?.textContent).toBe("关于");
    expect(byTestId("about-copy")?.textContent).toBe("复制用于问题反馈");
  });

  it("copies the bug-report text and says so", async () => {
    const writeText = vi.fn((_text: string) => Promise.resolve());
    await render(INFO, { clipboard: { clipboard: { writeText }, copyBySelection: () => false } });

    await clickCopy();

    expect(writeText).toHaveBeenCalledTimes(1);
    const copied = writeText.mock.calls[0]?.[0] ?? "";
    expect(copied.split("\n").slice(0, 3)).toEqual([
      "Pi Desktop 0.3.1",
      "Platform: linux x86_64",
      "Log folder: /home/ada/.local/share/dev.pi.desktop/logs",
    ]);
    expect(byTestId("about-copy-status")?.getAttribute("data-state")).toBe("copied");
    expect(byTestId("about-copy-status")?.textContent).toBe("Copied");
  });

  it("says when nothing could be copied", async () => {
    await render(INFO, {
      clipboard: { clipboard: { writeText: () => Promise.reject(new Error("denied")) }, copyBySelection: () => false },
    });

    await clickCopy();

    expect(byTestId("about-copy-status")?.getAttribute("data-state")).toBe("failed");
    expect(byTestId("about-copy-status")?.textContent).toBe(STRINGS.en.copyFailed);
  });

  it("opens the log folder, and words the failure when no file manager answers", async () => {
    ipc.openLogFolder.mockResolvedValueOnce(null);
    ipc.openLogFolder.mockRejectedValueOnce({ kind: "internal", code: "folder_not_opened", detail: "xdg-open failed" });
    await render(INFO);

    await act(async () => byTestId("about-open-log-folder")?.click());
    expect(ipc.openLogFolder).toHaveBeenCalledTimes(1);
    expect(byTestId("about-open-log-folder-error")).toBeNull();

    await act(async () => byTestId("about-open-log-folder")?.click());
    expect(byTestId("about-open-log-folder-error")?.textContent).toContain(STRINGS.en.errorCodes.folder_not_opened);
    expect(byTestId("about-open-log-folder-error")?.textContent).toContain("xdg-open failed");
  });

  it("offers no log folder to open when the backend names none", async () => {
    await render({ ...INFO, logDir: null });

    expect(byTestId("about-open-log-folder")).toBeNull();
  });
});
