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
        <table className="shortcuts-table">
          <caption>{strings.shortcuts.window}</caption>
          <thead>
            <tr>
              <th scope="col">{strings.shortcuts.keys}</th>
              <th scope="col">{strings.shortcuts.action}</th>
            </tr>
          </thead>
          <tbody>
            {WINDOW_SHORTCUTS.map((shortcut) => (
              <tr key={shortcut.action} data-testid="shortcut-row" data-action={shortcut.action}>
                <td>
                  <kbd>{comboLabel(shortcut.keys)}</kbd>
                </td>
                <td>{strings.shortcuts.actions[shortcut.action]}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <table className="shortcuts-table">
          <caption>{strings.shortcuts.composer}</caption>
          <thead>
            <tr>
              <th scope="col">{strings.shortcuts.keys}</th>
              <th scope="col">{strings.shortcuts.action}</th>
            </tr>
          </thead>
          <tbody>
            {COMPOSER_ACTIONS.map((action) => (
              <tr key={action} data-testid="shortcut-row" data-action={action}>
                <td>
                  <kbd>{comboLabel(keys[action])}</kbd>
                </td>
                <td>{strings.shortcuts.composerActions[action]}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="settings-note">{strings.shortcuts.imeNote}</p>
      </div>
    </div>
  );
}
