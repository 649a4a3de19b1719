// The window's keyboard shortcuts: one table (keys, action, label) that both the handler and the shortcuts
// sheet read, so what the sheet lists is what the keys do; the window-wide handler (`windowShortcut`) and the
// composer's Enter keys (`composerKeyAction`) decide from it.
import type { SendKeySetting } from "../../ipc/wire";

/** What a window-wide shortcut does. */
export type ShortcutAction =
  | "newConversation"
  | "searchConversations"
  | "toggleSettings"
  | "focusComposer"
  | "previousConversation"
  | "nextConversation"
  | "toggleSidebar"
  | "toggleShortcuts"
  | "toggleInspector"
  | "stopRun";

/** What the composer's Enter keys do (listed in the sheet; the composer handles them). */
export type ComposerAction = "send" | "newLine" | "steer" | "followUp";

/** One key combination. `ctrl` also matches ⌘ (macOS); `shift` absent means it is not looked at. */
export interface KeyCombo {
  key: string;
  ctrl?: boolean;
  alt?: boolean;
  shift?: boolean;
}

/** The part of a keyboard event the rules read (a DOM `KeyboardEvent` has all of it). */
export interface KeyInput {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  isComposing: boolean;
  keyCode?: number;
}

/** Which modal is open: while one is, only the shortcut that closes it works. */
export type OpenModal = "none" | "settings" | "shortcuts";

export interface WindowShortcut {
  action: ShortcutAction;
  keys: KeyCombo;
  /** Works while focus is in a text field (a plain key such as `/` would be typing there). */
  inTextFields: boolean;
  /** The modal this shortcut closes (it is the one shortcut that works while that modal is open). */
  closes?: Exclude<OpenModal, "none">;
}

export const WINDOW_SHORTCUTS: readonly WindowShortcut[] = [
  { action: "newConversation", keys: { key: "n", ctrl: true, shift: false }, inTextFields: true },
  { action: "searchConversations", keys: { key: "k", ctrl: true, shift: false }, inTextFields: true },
  { action: "toggleSettings", keys: { key: ",", ctrl: true }, inTextFields: true, closes: "settings" },
  { action: "focusComposer", keys: { key: "/" }, inTextFields: false },
  { action: "previousConversation", keys: { key: "PageUp", ctrl: true, shift: false }, inTextFields: true },
  { action: "nextConversation", keys: { key: "PageDown", ctrl: true, shift: false }, inTextFields: true },
  { action: "toggleSidebar", keys: { key: "b", ctrl: true, shift: false }, inTextFields: true },
  { action: "toggleShortcuts", keys: { key: "/", ctrl: true }, inTextFields: true, closes: "shortcuts" },
  { action: "toggleInspector", keys: { key: "i", ctrl: true, shift: false }, inTextFields: true },
  { action: "stopRun", keys: { key: "Escape" }, inTextFields: true },
];

/** The composer's keys for a send-key setting; Alt+Enter queues a follow-up in both. */
export function composerKeys(sendKey: SendKeySetting): Record<ComposerAction, KeyCombo> {
  const send: KeyCombo = sendKey === "ctrlEnter" ? { key: "Enter", ctrl: true } : { key: "Enter", shift: false };
  const newLine: KeyCombo = sendKey === "ctrlEnter" ? { key: "Enter" } : { key: "Enter", shift: true };
  return { send, newLine, steer: send, followUp: { key: "Enter", alt: true } };
}

/** Keycode browsers report for keys an input method consumes (WebKit sends it for the Enter ending a composition). */
const IME_KEY_CODE = 229;

/** The key belongs to an input method's composition (Chinese, Japanese, …): no shortcut may take it. */
export function isImeKey(input: KeyInput): boolean {
  return input.isComposing || input.keyCode === IME_KEY_CODE;
}

export function matches(combo: KeyCombo, input: KeyInput): boolean {
  const key = input.key.length === 1 ? input.key.toLowerCase() : input.key;
  if (key !== combo.key) return false;
  if ((input.ctrlKey || input.metaKey) !== (combo.ctrl ?? false)) return false;
  if (input.altKey !== (combo.alt ?? false)) return false;
  return combo.shift === undefined || input.shiftKey === combo.shift;
}

/** Where the keyboard focus is when the key comes. */
export interface ShortcutContext {
  modal: OpenModal;
  /** Focus is in a text field (input, textarea, select, an editable element). */
  inTextField: boolean;
  /** A run can be stopped (Esc is left alone otherwise). */
  canStop: boolean;
}

/** The window-wide action of a key, or null when the key is not a shortcut here (it is then left alone). */
export function windowShortcut(input: KeyInput, context: ShortcutContext): ShortcutAction | null {
  if (isImeKey(input)) return null;
  const shortcut = WINDOW_SHORTCUTS.find((candidate) => matches(candidate.keys, input));
  if (shortcut === undefined) return null;
  if (context.modal !== "none") return shortcut.closes === context.modal ? shortcut.action : null;
  if (context.inTextField && !shortcut.inTextFields) return null;
  if (shortcut.action === "stopRun" && !context.canStop) return null;
  return shortcut.action;
}

/** What the composer does with a key (null: the text field's own behaviour, a new line or typing). */
export function composerKeyAction(
  input: KeyInput,
  sendKey: SendKeySetting,
  runActive: boolean,
): "send" | "steer" | "followUp" | null {
  if (isImeKey(input) || input.key !== "Enter") return null;
  const keys = composerKeys(sendKey);
  if (runActive && matches(keys.followUp, input)) return "followUp";
  if (matches(keys.send, input)) return runActive ? "steer" : "send";
  // With Enter to send, Alt+Enter between runs sends too (as it always did) and so does Ctrl+Enter.
  if (sendKey === "enter" && !input.shiftKey && (input.altKey || input.ctrlKey || input.metaKey)) {
    return runActive ? "steer" : "send";
  }
  return null;
}

/** Whether `element` takes typed text, so a plain key such as `/` must stay typing there. */
export function isTextField(element: Element | null): boolean {
  if (element === null) return false;
  if (element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) return true;
  if (element instanceof HTMLInputElement) {
    return !["button", "checkbox", "radio", "range", "submit", "reset", "color", "file", "image"].includes(element.type);
  }
  return element instanceof HTMLElement && element.isContentEditable === true;
}

/** How a key combination is written in the sheet. */
export function comboLabel(combo: KeyCombo): string {
  const names: Record<string, string> = { PageUp: "PgUp", PageDown: "PgDn", Escape: "Esc", Enter: "Enter" };
  const key = names[combo.key] ?? combo.key.toUpperCase();
  return [combo.ctrl ? "Ctrl" : null, combo.alt ? "Alt" : null, combo.shift ? "Shift" : null, key]
    .filter((part) => part !== null)
    .join("+");
}
