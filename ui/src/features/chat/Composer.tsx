// The prompt box with Send and Stop. Enter sends, Shift+Enter starts a new line.
import { useState, type FormEvent, type KeyboardEvent } from "react";

interface ComposerProps {
  canSend: boolean;
  canStop: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
}

export function Composer({ canSend, canStop, onSend, onStop }: ComposerProps) {
  const [draft, setDraft] = useState("");

  const submit = () => {
    if (!canSend || draft.trim() === "") return;
    onSend(draft);
    setDraft("");
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submit();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  };

  return (
    <form className="composer" onSubmit={onSubmit}>
      <textarea
        className="composer-input"
        data-testid="composer-input"
        aria-label="Message"
        placeholder="Ask about your desktop files…"
        rows={3}
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer-actions">
        <button type="button" className="secondary" data-testid="stop-button" disabled={!canStop} onClick={onStop}>
          Stop
        </button>
        <button type="submit" className="primary" data-testid="send-button" disabled={!canSend}>
          Send
        </button>
      </div>
    </form>
  );
}
