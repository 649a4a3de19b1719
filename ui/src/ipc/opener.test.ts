import { beforeEach, describe, expect, it, vi } from "vitest";

const openUrl = vi.fn<(url: string) => Promise<void>>();
vi.mock("@tauri-apps/plugin-opener", () => ({ openUrl: (url: string) => openUrl(url) }));

const { openLink } = await import("./opener");

describe("opening links", () => {
  beforeEach(() => {
    openUrl.mockReset();
    openUrl.mockResolvedValue(undefined);
  });

  it("opens http, https and mailto links through the opener", async () => {
    for (const url of ["https://example.com/a?b=1#c", "http://localhost:8080/", "mailto:me@example.com", "HTTPS://EXAMPLE.COM"]) {
      expect(await openLink(url), url).toBeNull();
    }
    expect(openUrl.mock.calls.map(([url]) => url)).toEqual([
      "https://example.com/a?b=1#c",
      "http://localhost:8080/",
      "mailto:me@example.com",
      "HTTPS://EXAMPLE.COM",
    ]);
  });

  it("refuses every other scheme without calling the opener", async () => {
    for (const url of [
      "javascript:alert(1)",
      " javascript:alert(1)",
      "data:text/html,hi",
      "file:///etc/passwd",
      "tel:+123",
      "ftp://example.com/",
      "/relative",
      "https://exa mple.com/",
      "https:",
      "https://example.com/\n",
      "",
    ]) {
      expect(await openLink(url), JSON.stringify(url)).toEqual({ kind: "refused", url });
    }
    expect(openUrl).not.toHaveBeenCalled();
  });

  it("says why the opener failed", async () => {
    openUrl.mockRejectedValue("Not allowed to open url https://example.com/");
    expect(await openLink("https://example.com/")).toEqual({
      kind: "failed",
      url: "https://example.com/",
      message: "Not allowed to open url https://example.com/",
    });
  });
});
