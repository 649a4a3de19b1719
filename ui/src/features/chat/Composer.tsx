// The one composer: Enter sends, Shift+Enter starts a new line, and Enter while an input method is composing
// (Chinese, Japanese, …) never sends. Send and Stop share one fixed place; only the one that applies shows.
// While a run is in progress Send stays disabled but the composer stays usable: Enter (or Steer) queues a
// steering message and Alt+Enter (or Queue) a follow-up; the text leaves the box at once and comes back if the
// host refuses it, so nothing typed is lost.
import { useLayoutEffect, useRef, useState, type FormEvent, type KeyboardEvent } from "react";

import { useStrings } from "../../i18n/I18n";
import type { QueueKind } from "../../ipc/backend";
import { SendIcon, StopIcon } from "./icons";
import "./queue.css";
import "./status-line.css";

interface ComposerProps {
  canSend: boolean;
  canStop: boolean;
  /** A run is in progress: Enter steers, Alt+Enter queues a follow-up. */
  canQueue: boolean;
  stopRequested: boolean;
  /** Returns whether the text was accepted (the composer is cleared only then). */
  onSend: (text: string) => boolean;
  /** Resolves whether the host queued the text; when it did not, the text comes back into the composer. */
  onQueue: (kind: QueueKind, text: string) => Promise<boolean>;
  onStop: () => void;
  /** Why Send is disabled before any run (no usable model yet), shown next to it; `null` when it is not. */
  blockedReason?: string | null;
}

/** Keycode browsers report for keys an input method consumes (WebKit sends it for the Enter ending a composition). */
const IME_KEY_CODE = 229;
const MAX_INPUT_HEIGHT_PX = 220;

export function Composer({
  canSend: runAllowsSend,
  canStop,
  canQueue,
  stopRequested,
  onSend,
  onQueue,
  onStop,
  blockedReason = null,
}: ComposerProps) {
  const canSend = runAllowsSend && blockedReason === null;
  const strings = useStrings();
  const [draft, setDraft] = useState("");
  const composing = useRef(false);
  const input = useRef<HTMLTextAreaElement>(null);

  // Grow with the text up to a limit (CSSOM height, which the CSP allows).
  useLayoutEffect(() => {
    const element = input.current;
    if (element === null) return;
    element.style.height = "auto";
    element.style.height = `${Math.min(element.scrollHeight, MAX_INPUT_HEIGHT_PX)}px`;
  }, [draft]);

  const submit = () => {
    if (!canSend || draft.trim() === "") return;
    if (onSend(draft)) setDraft("");
  };

  const queue = (kind: QueueKind) => {
    const text = draft.trim();
    if (!canQueue || text === "") return;
    setDraft("");
    void onQueue(kind, text).then((queued) => {
      // Refused: the text comes back, before anything typed since.
      if (!queued) setDraft((current) => (current.trim() === "" ? text : `${text}\n${current}`));
    });
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    submit();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key !== "Enter" || event.shiftKey) return;
    if (composing.current || event.nativeEvent.isComposing || event.keyCode === IME_KEY_CODE) return;
    event.preventDefault();
    if (canQueue) queue(event.altKey ? "follow_up" : "steer");
    else submit();
  };

  const empty = draft.trim() === "";
  return (
    <form className="composer" onSubmit={onSubmit}>
      <textarea
        ref={input}
        className="composer-input"
        data-testid="composer-input"
        aria-label={strings.composerLabel}
        placeholder={canQueue ? strings.composerPlaceholderRunning : strings.composerPlaceholder}
        rows={1}
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
        onCompositionStart={() => {
          composing.current = true;
        }}
        onCompositionEnd={() => {
          composing.current = false;
        }}
      />
      <div className="composer-queue-buttons" hidden={!canQueue}>
        <button
          type="button"
          className="queue-button"
          data-testid="steer-button"
          title={strings.steerTitle}
          disabled={!canQueue || empty}
          onClick={() => queue("steer")}
        >
          {strings.steer}
        </button>
        <button
          type="button"
          className="queue-button"
          data-testid="follow-up-button"
          title={strings.followUpTitle}
          disabled={!canQueue || empty}
          onClick={() => queue("follow_up")}
        >
          {strings.followUp}
        </button>
      </div>
      {blockedReason !== null && !canStop ? (
        <span className="send-blocked" data-testid="send-blocked-reason" id="send-blocked-reason">
          {blockedReason}
        </span>
      ) : null}
      <div className="composer-button-slot">
        <button
          type="submit"
          className="round-button send"
          data-testid="send-button"
          aria-label={strings.send}
          title={strings.send}
          disabled={!canSend}
          aria-describedby={blockedReason !== null ? "send-blocked-reason" : undefined}
          hidden={canStop}
        >
          <SendIcon />
        </button>
        <button
          type="button"
          className="round-button stop"
          data-testid="stop-button"
          aria-label={stopRequested ? strings.stopping : strings.stop}
          title={`${strings.stop} (Esc)`}
          disabled={!canStop}
          hidden={!canStop}
          onClick={onStop}
        >
          <StopIcon />
        </button>
      </div>
    </form>
  );
}
