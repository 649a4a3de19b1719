// @vitest-environment jsdom
// The shortcut table and its rules: what each key does, that an input method's keys never count, that a plain
// key stays typing in a text field, that an open modal takes only the key that closes it, and the send key.
import { describe, expect, it } from "vitest";

import { STRINGS } from "../../i18n/strings";
import {
  WINDOW_SHORTCUTS,
  comboLabel,
  composerKeyAction,
  composerKeys,
  isTextField,
  windowShortcut,
  type KeyInput,
  type ShortcutContext,
} from "./shortcuts";

const key = (name: string, modifiers: Partial<KeyInput> = {}): KeyInput => ({
  key: name,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  isComposing: false,
  ...modifiers,
});
const ctrl = (name: string, modifiers: Partial<KeyInput> = {}) => key(name, { ctrlKey: true, ...modifiers });
const idle: ShortcutContext = { modal: "none", inTextField: false, canStop: false };

describe("window shortcuts", () => {
  it("map each key to its action", () => {
    const pressed: [KeyInput, string][] = [
      [ctrl("n"), "newConversation"],
      [ctrl("k"), "searchConversations"],
      [ctrl(","), "toggleSettings"],
      [key("/"), "focusComposer"],
      [ctrl("PageUp"), "previousConversation"],
      [ctrl("PageDown"), "nextConversation"],
      [ctrl("b"), "toggleSidebar"],
      [ctrl("/"), "toggleShortcuts"],
      [ctrl("i"), "toggleInspector"],
      [key("N", { metaKey: true }), "newConversation"],
      [ctrl("K", { shiftKey: false }), "searchConversations"],
    ];
    for (const [input, action] of pressed) {
      expect(windowShortcut(input, idle), JSON.stringify(input)).toBe(action);
    }
    expect(windowShortcut(key("Escape"), { ...idle, canStop: true })).toBe("stopRun");
  });

  it("leave other keys alone", () => {
    for (const input of [key("n"), key("b"), ctrl("n", { altKey: true }), ctrl("n", { shiftKey: true }), key("PageUp"), ctrl("j")]) {
      expect(windowShortcut(input, idle), JSON.stringify(input)).toBeNull();
    }
    expect(windowShortcut(key("Escape"), idle)).toBeNull();
  });

  it("never fire while an input method composes", () => {
    for (const shortcut of WINDOW_SHORTCUTS) {
      const { key: name, ctrl: withCtrl, alt, shift } = shortcut.keys;
      const input = key(name, { ctrlKey: withCtrl ?? false, altKey: alt ?? false, shiftKey: shift ?? false });
      expect(windowShortcut({ ...input, isComposing: true }, { ...idle, canStop: true })).toBeNull();
      expect(windowShortcut({ ...input, keyCode: 229 }, { ...idle, canStop: true })).toBeNull();
      expect(windowShortcut(input, { ...idle, canStop: true })).toBe(shortcut.action);
    }
  });

  it("keep a plain key typing in a text field, while Ctrl shortcuts still work there", () => {
    const inField = { ...idle, inTextField: true };
    expect(windowShortcut(key("/"), inField)).toBeNull();
    expect(windowShortcut(ctrl("n"), inField)).toBe("newConversation");
    expect(windowShortcut(ctrl("/"), inField)).toBe("toggleShortcuts");
    expect(windowShortcut(key("Escape"), { ...inField, canStop: true })).toBe("stopRun");
  });

  it("take only the key that closes the open modal", () => {
    const settings: ShortcutContext = { ...idle, modal: "settings", canStop: true };
    const sheet: ShortcutContext = { ...idle, modal: "shortcuts", canStop: true };
    expect(windowShortcut(ctrl(","), settings)).toBe("toggleSettings");
    expect(windowShortcut(ctrl("/"), sheet)).toBe("toggleShortcuts");
    for (const input of [ctrl("n"), ctrl("k"), key("/"), ctrl("PageDown"), ctrl("b"), ctrl("i"), key("Escape")]) {
      expect(windowShortcut(input, settings), JSON.stringify(input)).toBeNull();
      expect(windowShortcut(input, sheet), JSON.stringify(input)).toBeNull();
    }
    expect(windowShortcut(ctrl("/"), settings)).toBeNull();
    expect(windowShortcut(ctrl(","), sheet)).toBeNull();
  });

  it("are written the way the sheet shows them, with a label in both languages", () => {
    expect(WINDOW_SHORTCUTS.map((shortcut) => comboLabel(shortcut.keys))).toEqual([
      "Ctrl+N",
      "Ctrl+K",
      "Ctrl+,",
      "/",
      "Ctrl+PgUp",
      "Ctrl+PgDn",
      "Ctrl+B",
      "Ctrl+/",
      "Ctrl+I",
      "Esc",
    ]);
    for (const shortcut of WINDOW_SHORTCUTS) {
      expect(STRINGS.en.shortcuts.actions[shortcut.action]).not.toBe("");
      expect(STRINGS.zh.shortcuts.actions[shortcut.action]).not.toBe(STRINGS.en.shortcuts.actions[shortcut.action]);
    }
  });
});

describe("the composer's keys", () => {
  it("with Enter to send: Enter sends, Shift+Enter is a new line, and during a run Enter steers and Alt+Enter queues", () => {
    expect(composerKeyAction(key("Enter"), "enter", false)).toBe("send");
    expect(composerKeyAction(key("Enter", { shiftKey: true }), "enter", false)).toBeNull();
    expect(composerKeyAction(key("Enter", { altKey: true }), "enter", false)).toBe("send");
    expect(composerKeyAction(ctrl("Enter"), "enter", false)).toBe("send");
    expect(composerKeyAction(key("Enter"), "enter", true)).toBe("steer");
    expect(composerKeyAction(key("Enter", { altKey: true }), "enter", true)).toBe("followUp");
    expect(composerKeyAction(key("Enter", { shiftKey: true }), "enter", true)).toBeNull();
    expect(composerKeyAction(key("a"), "enter", false)).toBeNull();
  });

  it("with Ctrl+Enter to send: Enter is a new line, Ctrl+Enter sends or steers, Alt+Enter queues", () => {
    expect(composerKeyAction(key("Enter"), "ctrlEnter", false)).toBeNull();
    expect(composerKeyAction(key("Enter", { shiftKey: true }), "ctrlEnter", false)).toBeNull();
    expect(composerKeyAction(ctrl("Enter"), "ctrlEnter", false)).toBe("send");
    expect(composerKeyAction(key("Enter", { metaKey: true }), "ctrlEnter", false)).toBe("send");
    expect(composerKeyAction(key("Enter"), "ctrlEnter", true)).toBeNull();
    expect(composerKeyAction(ctrl("Enter"), "ctrlEnter", true)).toBe("steer");
    expect(composerKeyAction(key("Enter", { altKey: true }), "ctrlEnter", true)).toBe("followUp");
  });

  it("never send the Enter that ends an input method's composition", () => {
    for (const sendKey of ["enter", "ctrlEnter"] as const) {
      for (const running of [false, true]) {
        expect(composerKeyAction(key("Enter", { isComposing: true }), sendKey, running)).toBeNull();
        expect(composerKeyAction(ctrl("Enter", { isComposing: true }), sendKey, running)).toBeNull();
        expect(composerKeyAction(key("Enter", { keyCode: 229 }), sendKey, running)).toBeNull();
      }
    }
  });

  it("are listed with the keys of the setting", () => {
    const label = (sendKey: "enter" | "ctrlEnter") =>
      Object.fromEntries(Object.entries(composerKeys(sendKey)).map(([action, combo]) => [action, comboLabel(combo)]));
    expect(label("enter")).toEqual({ send: "Enter", newLine: "Shift+Enter", steer: "Enter", followUp: "Alt+Enter" });
    expect(label("ctrlEnter")).toEqual({ send: "Ctrl+Enter", newLine: "Enter", steer: "Ctrl+Enter", followUp: "Alt+Enter" });
  });
});

describe("text fields", () => {
  it("are inputs that take text, text areas, selects and editable elements", () => {
    const make = (html: string) => {
      const holder = document.createElement("div");
      holder.innerHTML = html;
      return holder.firstElementChild;
    };
    expect(isTextField(make('<input type="search">'))).toBe(true);
    expect(isTextField(make("<input>"))).toBe(true);
    expect(isTextField(make("<textarea></textarea>"))).toBe(true);
    expect(isTextField(make("<select></select>"))).toBe(true);
    expect(isTextField(make('<input type="checkbox">'))).toBe(false);
    expect(isTextField(make("<button></button>"))).toBe(false);
    expect(isTextField(null)).toBe(false);
    const editable = make('<div contenteditable="true"></div>') as HTMLElement;
    // jsdom does not compute isContentEditable; a browser does.
    Object.defineProperty(editable, "isContentEditable", { value: true });
    expect(isTextField(editable)).toBe(true);
  });
});
