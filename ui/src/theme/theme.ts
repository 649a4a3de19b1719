// The window's theme: the setting (system, light, dark) resolved against the system's colour scheme and put on
// <html data-theme>, which the stylesheets read. The setting is also kept in localStorage, where
// public/theme-boot.js reads it before the first paint of the next start (so there is no flash of the other
// theme); both sides must keep the key and the values below.
import { useEffect } from "react";

import type { ThemeSetting } from "../ipc/wire";

export const THEME_STORAGE_KEY = "pi-desktop.theme";

export type AppliedTheme = "light" | "dark";

const DARK_QUERY = "(prefers-color-scheme: dark)";

export function resolveTheme(setting: ThemeSetting, systemPrefersDark: boolean): AppliedTheme {
  switch (setting) {
    case "light":
      return "light";
    case "dark":
      return "dark";
    case "system":
      return systemPrefersDark ? "dark" : "light";
  }
}

/** Puts the theme on the document and remembers the setting for the next start. */
export function applyTheme(setting: ThemeSetting, systemPrefersDark: boolean, root: HTMLElement = document.documentElement): void {
  root.setAttribute("data-theme", resolveTheme(setting, systemPrefersDark));
  try {
    window.localStorage.setItem(THEME_STORAGE_KEY, setting);
  } catch {
    // Without storage the next start follows the system until the settings load; nothing is lost.
  }
}

/**
 * Keeps the document's theme in step with the setting (null while the settings load: the theme the boot script
 * applied stays) and, for `system`, with the system's colour scheme as it changes.
 */
export function useTheme(setting: ThemeSetting | null): void {
  useEffect(() => {
    if (setting === null) return;
    const query = window.matchMedia(DARK_QUERY);
    applyTheme(setting, query.matches);
    if (setting !== "system") return;
    const onChange = (event: MediaQueryListEvent) => applyTheme(setting, event.matches);
    query.addEventListener("change", onChange);
    return () => query.removeEventListener("change", onChange);
  }, [setting]);
}
