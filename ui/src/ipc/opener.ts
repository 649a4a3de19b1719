// Opens a link of an answer outside the app: in the system browser (http, https) or mail program (mailto),
// through Tauri's opener plugin, whose capability allows those schemes only. Nothing else is ever opened, and
// the webview itself never navigates.
import { openUrl } from "@tauri-apps/plugin-opener";

import { isWebLink } from "../markdown/links";

/** Why a link was not opened. */
export type OpenLinkError = { kind: "refused"; url: string } | { kind: "failed"; url: string; message: string };

/** Opens `url` when it is a web or mail link; resolves with the reason it did not, or null. */
export async function openLink(url: string): Promise<OpenLinkError | null> {
  if (!isWebLink(url)) return { kind: "refused", url };
  try {
    await openUrl(url);
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { kind: "failed", url, message };
  }
}
