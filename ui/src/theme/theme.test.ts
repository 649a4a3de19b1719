// @vitest-environment jsdom
// The theme: the setting resolved against the system's scheme, put on <html data-theme> and remembered; and the
// boot script (public/theme-boot.js), run as the page runs it, applying what the window remembered.
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import { THEME_STORAGE_KEY, applyTheme, resolveTheme } from "./theme";

// The jsdom environment gives the module an http: URL, so the file is found from the test's folder.
const BOOT_SCRIPT = readFileSync(join(__dirname, "..", "..", "public", "theme-boot.js"), "utf8");

function runBootScript(systemPrefersDark: boolean): string | null {
  window.matchMedia = ((query: string) => ({
    matches: query === "(prefers-color-scheme: dark)" && systemPrefersDark,
  })) as unknown as typeof window.matchMedia;
  document.documentElement.removeAttribute("data-theme");
  new Function(BOOT_SCRIPT)();
  return document.documentElement.getAttribute("data-theme");
}

afterEach(() => {
  window.localStorage.clear();
  document.documentElement.removeAttribute("data-theme");
});

describe("theme", () => {
  it("resolves system with the system's scheme and keeps light and dark as they are", () => {
    expect(resolveTheme("system", true)).toBe("dark");
    expect(resolveTheme("system", false)).toBe("light");
    expect(resolveTheme("light", true)).toBe("light");
    expect(resolveTheme("dark", false)).toBe("dark");
  });

  it("puts the theme on the document and remembers the setting", () => {
    applyTheme("dark", false);
    expect(document.documentElement.getAttribute("data-theme")).toBe("dark");
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBe("dark");
    applyTheme("system", false);
    expect(document.documentElement.getAttribute("data-theme")).toBe("light");
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBe("system");
  });

  it("is applied again at the next start by the boot script, from what applyTheme stored", () => {
    expect(runBootScript(false)).toBe("light");
    expect(runBootScript(true)).toBe("dark");
    applyTheme("dark", false);
    expect(runBootScript(false)).toBe("dark");
    applyTheme("light", true);
    expect(runBootScript(true)).toBe("light");
    applyTheme("system", true);
    expect(runBootScript(true)).toBe("dark");
    expect(runBootScript(false)).toBe("light");
  });
});
