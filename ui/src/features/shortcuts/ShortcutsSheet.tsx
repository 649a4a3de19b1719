// The shortcuts sheet (Ctrl+/): every window shortcut and the composer's keys, read from the one shortcut table,
// so it lists exactly what the keys do. A modal dialog: focus stays inside while it is open and goes back where
// it was when it closes (Esc, its close button, a click beside it, or Ctrl+/ again).
import { useEffect, useRef } from "react";

import { useFocusTrap } from "../../a11y/useFocusTrap";
import { useStrings } from "../../i18n/I18n";
import type { SendKeySetting } from "../../ipc/wire";
import { CloseIcon } from "../chat/icons";
import { WINDOW_SHORTCUTS, comboLabel, composerKeys, type ComposerAction } from "./shortcuts";

interface ShortcutsSheetProps {
  sendKey: SendKeySetting;
  onClose: () => void;
}

const COMPOSER_ACTIONS: readonly ComposerAction[] = ["send", "newLine", "steer", "followUp"];

export function ShortcutsSheet({ sendKey, onClose }: ShortcutsSheetProps) {
  const strings = useStrings();
  const sheet = useRef<HTMLDivElement>(null);
  useFocusTrap(sheet);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape" && !event.isComposing) {
        event.preventDefault();
        onClose();
      }
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [onClose]);

  const keys = composerKeys(sendKey);
  return (
    <div className="settings-backdrop" onClick={onClose}>
      <div
        className="settings-panel shortcuts-sheet"
        data-testid="shortcuts-sheet"
        role="dialog"
        aria-modal="true"
        aria-labelledby="shortcuts-title"
        tabIndex={-1}
        ref={sheet}
        onClick={(event) => event.stopPropagation()}
      >
        <div className="settings-head">
          <h2 id="shortcuts-title">{strings.shortcuts.title}</h2>
          <button
            type="button"
            className="icon-button"
            data-testid="shortcuts-close"
            aria-label={strings.close}
            title={strings.close}
            onClick={onClose}
          >
            <CloseIcon />
          </button>
        </div>
        <ShortcutTable
          caption={strings.shortcuts.window}
          rows={WINDOW_SHORTCUTS.map((shortcut) => ({
            action: shortcut.action,
            keys: comboLabel(shortcut.keys),
            label: strings.shortcuts.actions[shortcut.action],
          }))}
        />
        <ShortcutTable
          caption={strings.shortcuts.composer}
          rows={COMPOSER_ACTIONS.map((action) => ({
            action,
            keys: comboLabel(keys[action]),
            label: strings.shortcuts.composerActions[action],
          }))}
        />
        <p className="settings-note">{strings.shortcuts.imeNote}</p>
      </div>
    </div>
  );
}

interface ShortcutRow {
  action: string;
  keys: string;
  label: string;
}

function ShortcutTable({ caption, rows }: { caption: string; rows: readonly ShortcutRow[] }) {
  const strings = useStrings();
  return (
    <table className="shortcuts-table">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">{strings.shortcuts.keys}</th>
          <th scope="col">{strings.shortcuts.action}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.action} data-testid="shortcut-row" data-action={row.action}>
            <td>
              <kbd>{row.keys}</kbd>
            </td>
            <td>{row.label}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
