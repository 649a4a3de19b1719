import { afterEach, describe, expect, it, vi } from "vitest";

import { EARLY_ANSWERS_KEPT_MS, askEarly, earlyOr } from "./early";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("early answers", () => {
  it("go to the first caller only; later callers ask again", async () => {
    vi.spyOn(performance, "now").mockReturnValue(100);
    const early = vi.fn(() => Promise.resolve("early"));
    askEarly("settings", early);
    const later = vi.fn(() => Promise.resolve("asked again"));

    await expect(earlyOr("settings", later)).resolves.toBe("early");
    await expect(earlyOr("settings", later)).resolves.toBe("asked again");
    expect(early).toHaveBeenCalledTimes(1);
    expect(later).toHaveBeenCalledTimes(1);
  });

  it("are not handed out once the page's first seconds are over", async () => {
    const now = vi.spyOn(performance, "now").mockReturnValue(10);
    askEarly("appInfo", () => Promise.resolve("stale"));
    now.mockReturnValue(EARLY_ANSWERS_KEPT_MS + 1);

    await expect(earlyOr("appInfo", () => Promise.resolve("fresh"))).resolves.toBe("fresh");
  });

  it("keep each command's answer apart, and one nobody asked early for is asked for", async () => {
    vi.spyOn(performance, "now").mockReturnValue(10);
    askEarly("conversationList", () => Promise.resolve("list"));

    await expect(earlyOr("providerStatus", () => Promise.resolve("status"))).resolves.toBe("status");
    await expect(earlyOr("conversationList", () => Promise.resolve("asked again"))).resolves.toBe("list");
  });

  it("hand a failure to the caller that takes it, and leave none unhandled before", async () => {
    vi.spyOn(performance, "now").mockReturnValue(10);
    const unhandled = vi.fn();
    process.on("unhandledRejection", unhandled);
    askEarly("settings", () => Promise.reject(new Error("no settings")));
    await new Promise((resolve) => setTimeout(resolve, 0));
    process.off("unhandledRejection", unhandled);

    expect(unhandled).not.toHaveBeenCalled();
    await expect(earlyOr("settings", () => Promise.resolve("asked again"))).rejects.toThrow("no settings");
  });
});
