// Runs before the app's module and before the body is parsed (a plain script in <head>, allowed by the CSP's
// script-src 'self'): it applies the last theme the window stored, so the first paint already has it. The
// contract with src/theme/theme.ts: the setting is stored under "pi-desktop.theme" as "system", "light" or
// "dark"; <html data-theme> gets "light" or "dark".
(function () {
  var setting = null;
  try {
    setting = window.localStorage.getItem("pi-desktop.theme");
  } catch (_error) {
    // No storage (a locked-down profile): follow the system.
  }
  var dark =
    setting === "dark" ||
    (setting !== "light" && window.matchMedia !== undefined && window.matchMedia("(prefers-color-scheme: dark)").matches);
  document.documentElement.setAttribute("data-theme", dark ? "dark" : "light");
})();
