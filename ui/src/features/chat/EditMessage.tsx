// A question being edited: its text in a field, Send (a new branch from here) and Cancel. Enter sends,
// Shift+Enter is a new line, Esc cancels; the field stays open until the host took the new text.
import { useState, type KeyboardEvent } from "react";

import { useStrings } from "../../i18n/I18n";

interface EditMessageProps {
  text: string;
  onSend: (text: string) => Promise<boolean>;
  onCancel: () => void;
}

export function EditMessage({ text, onSend, onCancel }: EditMessageProps) {
  const strings = useStrings().messageActions;
  const [draft, setDraft] = useState(text);
  const [sending, setSending] = useState(false);
  const send = () => {
    if (draft.trim() === "" || sending) return;
    setSending(true);
    void onSend(draft).then((taken) => {
      if (!taken) setSending(false);
    });
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.nativeEvent.isComposing) return;
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      send();
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      onCancel();
    }
  };
  return (
    <div className="user-row editing" data-testid="message-edit">
      <textarea
        className="edit-input"
        data-testid="edit-input"
        aria-label={strings.editLabel}
        value={draft}
        rows={Math.min(8, Math.max(2, draft.split("\n").length))}
        autoFocus
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="message-actions">
        <button type="button" className="ghost-button" data-testid="edit-cancel" onClick={onCancel}>
          {strings.editCancel}
        </button>
        <button type="button" className="primary edit-send" data-testid="edit-send" disabled={draft.trim() === "" || sending} onClick={send}>
          {strings.editSend}
        </button>
      </div>
    </div>
  );
}
