import { describe, expect, it, vi } from "vitest";

import type { AppInfo } from "../../ipc/wire";
import { aboutReport, copyText, type ClipboardHost } from "./about";

const INFO: AppInfo = {
  name: "Pi Desktop",
  version: "0.3.1",
  logDir: "/home/ada/.local/share/dev.pi.desktop/logs",
  os: "linux",
  arch: "x86_64",
};

describe("about report", () => {
  it("names the version, platform, log folder and web view, one per line", () => {
    expect(aboutReport(INFO, "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15")).toBe(
      [
        "Pi Desktop 0.3.1",
        "Platform: linux x86_64",
        "Log folder: /home/ada/.local/share/dev.pi.desktop/logs",
        "Web view: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15",
      ].join("\n"),
    );
  });

  it("says unknown when the platform names no log folder", () => {
    expect(aboutReport({ ...INFO, logDir: null }, "UA").split("\n")[2]).toBe("Log folder: unknown");
  });
});

describe("copying", () => {
  function host(clipboard: ClipboardHost["clipboard"], selectionWorks: boolean) {
    const copyBySelection = vi.fn(() => selectionWorks);
    return { host: { clipboard, copyBySelection }, copyBySelection };
  }

  it("uses the async clipboard when it accepts the text", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    const { host: page, copyBySelection } = host({ writeText }, false);

    await expect(copyText("report", page)).resolves.toBe(true);
    expect(writeText).toHaveBeenCalledWith("report");
    expect(copyBySelection).not.toHaveBeenCalled();
  });

  it("falls back to the selection copy when the clipboard refuses", async () => {
    const writeText = vi.fn(() => Promise.reject(new DOMException("denied", "NotAllowedError")));
    const { host: page, copyBySelection } = host({ writeText }, true);

    await expect(copyText("report", page)).resolves.toBe(true);
    expect(copyBySelection).toHaveBeenCalledWith("report");
  });

  it("uses the selection copy when there is no async clipboard, and reports its failure", async () => {
    const { host: page, copyBySelection } = host(undefined, false);

    await expect(copyText("report", page)).resolves.toBe(false);
    expect(copyBySelection).toHaveBeenCalledWith("report");
  });
});
