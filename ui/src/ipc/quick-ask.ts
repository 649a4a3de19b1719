// The quick-ask window's commands (src-tauri/src/quick_ask.rs), and which window this page is.
import { invoke } from "@tauri-apps/api/core";
import { getCurrentWindow } from "@tauri-apps/api/window";

import type { RunAccepted } from "./wire";
import type { QuickAskShortcutStatus } from "./bindings/QuickAskShortcutStatus";

export type { QuickAskShortcutStatus };

/** The quick-ask window's label, as src-tauri names it. */
export const QUICK_ASK_WINDOW = "quick-ask";

/** Whether this page is the quick-ask window's (the main window's otherwise, and outside Tauri). */
export function isQuickAskWindow(): boolean {
  try {
    return getCurrentWindow().label === QUICK_ASK_WINDOW;
  } catch {
    return false;
  }
}

/** Asks `text` in a new conversation beside the main window's; resolves once the run is accepted. */
export function quickAsk(text: string): Promise<RunAccepted> {
  return invoke<RunAccepted>("quick_ask", { text });
}

/** Hides the quick-ask window and shows conversation `conversationId` in the main window, in front. */
export function openInMainWindow(conversationId: string): Promise<null> {
  return invoke<null>("open_in_main_window", { conversationId });
}

/** Hides the quick-ask window. */
export function hideQuickAsk(): Promise<null> {
  return invoke<null>("hide_quick_ask");
}

/** Whether the quick-ask shortcut is registered, and why not. */
export function quickAskShortcutStatus(): Promise<QuickAskShortcutStatus> {
  return invoke<QuickAskShortcutStatus>("quick_ask_shortcut_status");
}
