// The About section's text for bug reports, and copying text to the clipboard.
import type { AppInfo } from "../../ipc/wire";

/**
 * The plain-text block a user pastes into a bug report: name and version, platform, log folder and the web view's
 * user agent (WebKitGTK / WebView2 / WKWebView version). Always English, whatever the UI language, so reports
 * read the same.
 */
export function aboutReport(info: AppInfo, userAgent: string): string {
  return [
    `${info.name} ${info.version}`,
    `Platform: ${info.os} ${info.arch}`,
    `Log folder: ${info.logDir ?? "unknown"}`,
    `Web view: ${userAgent}`,
  ].join("\n");
}

/** What copying needs from the page; tests pass fakes. */
export interface ClipboardHost {
  clipboard?: { writeText(text: string): Promise<void> } | undefined;
  /** The old selection-based copy, for web views without the async Clipboard API. */
  copyBySelection(text: string): boolean;
}

/** Copies `text`; resolves true when the text reached the clipboard by either way. */
export async function copyText(text: string, host: ClipboardHost): Promise<boolean> {
  if (host.clipboard !== undefined) {
    try {
      await host.clipboard.writeText(text);
      return true;
    } catch {
      // Denied or unsupported in this web view: fall through to the selection-based copy.
    }
  }
  return host.copyBySelection(text);
}

/** The page's clipboard: the async Clipboard API when present, else a hidden textarea and `execCommand("copy")`. */
export function pageClipboard(): ClipboardHost {
  return {
    clipboard: typeof navigator.clipboard?.writeText === "function" ? navigator.clipboard : undefined,
    copyBySelection(text: string): boolean {
      const area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.append(area);
      area.select();
      try {
        return document.execCommand("copy");
      } catch {
        return false;
      } finally {
        area.remove();
      }
    },
  };
}
