// The one composer: Enter sends and Shift+Enter starts a new line (or, with the send key set to Ctrl+Enter,
// Ctrl+Enter sends and Enter starts a new line; the keys come from ../shortcuts/shortcuts.ts), and Enter while an
// input method is composing (Chinese, Japanese, …) never sends. Send and Stop share one fixed place; only the one that applies shows.
// While a run is in progress Send stays disabled but the composer stays usable: Enter (or Steer) queues a
// steering message and Alt+Enter (or Queue) a follow-up; the text leaves the box at once and comes back if the
// host refuses it, so nothing typed is lost. Images and files are attached with the paperclip (a file input), by
// pasting or by dropping them on the composer; they wait above it as chips (./AttachmentTray) and go with the next
// Send, which may then have no text. Images for a model that does not read them keep Send off, with a notice.
import {
  useLayoutEffect,
  useRef,
  useState,
  type ClipboardEvent,
  type DragEvent,
  type FormEvent,
  type KeyboardEvent,
  type RefObject,
} from "react";

import { useStrings } from "../../i18n/I18n";
import type { QueueKind } from "../../ipc/backend";
import type { SendKeySetting } from "../../ipc/wire";
import { composerKeyAction } from "../shortcuts/shortcuts";
import { ATTACH_ACCEPT, hasImages, stillReading, type PendingAttachment } from "./attachment-rules";
import { AttachmentTray } from "./AttachmentTray";
import { PaperclipIcon, SendIcon, StopIcon } from "./icons";
import { useAttachments } from "./useAttachments";
import "./queue.css";
import "./status-line.css";

interface ComposerProps {
  canSend: boolean;
  canStop: boolean;
  /** A run is in progress: Enter steers, Alt+Enter queues a follow-up. */
  canQueue: boolean;
  stopRequested: boolean;
  /** Returns whether the text and attachments were accepted (the composer is cleared only then). */
  onSend: (text: string, attachments: readonly PendingAttachment[]) => boolean;
  /** Resolves whether the host queued the text; when it did not, the text comes back into the composer. */
  onQueue: (kind: QueueKind, text: string) => Promise<boolean>;
  onStop: () => void;
  /** Why Send is disabled before any run (no usable model yet), shown next to it; `null` when it is not. */
  blockedReason?: string | null;
  /** Which key sends (default Enter). */
  sendKey?: SendKeySetting;
  /** The text box, for the window's "focus the composer" shortcut. */
  inputRef?: RefObject<HTMLTextAreaElement | null>;
  /** Whether the model reads images (when it does not, a message with images is not sent). */
  imageInput?: boolean;
  /** The model's name, for the notice. */
  modelName?: string;
}

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
  sendKey = "enter",
  inputRef,
  imageInput = true,
  modelName = "",
}: ComposerProps) {
  const attachments = useAttachments();
  const imagesRefused = !imageInput && hasImages(attachments.items);
  const canSend = runAllowsSend && blockedReason === null && !stillReading(attachments.items) && !imagesRefused;
  const strings = useStrings();
  const [draft, setDraft] = useState("");
  const [dropping, setDropping] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const composing = useRef(false);
  const ownInput = useRef<HTMLTextAreaElement>(null);
  const input = inputRef ?? ownInput;

  // Grow with the text up to a limit (CSSOM height, which the CSP allows).
  useLayoutEffect(() => {
    const element = input.current;
    if (element === null) return;
    element.style.height = "auto";
    element.style.height = `${Math.min(element.scrollHeight, MAX_INPUT_HEIGHT_PX)}px`;
  }, [draft]);

  const submit = () => {
    if (!canSend || (draft.trim() === "" && attachments.items.length === 0)) return;
    if (onSend(draft, attachments.items)) {
      setDraft("");
      attachments.clear();
    }
  };

  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = Array.from(event.clipboardData.files);
    if (files.length === 0) return;
    event.preventDefault();
    attachments.add(files);
  };

  const carriesFiles = (event: DragEvent<HTMLFormElement>) => Array.from(event.dataTransfer.types).includes("Files");
  const onDragOver = (event: DragEvent<HTMLFormElement>) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "copy";
    setDropping(true);
  };
  const onDrop = (event: DragEvent<HTMLFormElement>) => {
    setDropping(false);
    if (!carriesFiles(event)) return;
    event.preventDefault();
    attachments.add(Array.from(event.dataTransfer.files));
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
    if (composing.current) return;
    const action = composerKeyAction(
      {
        key: event.key,
        ctrlKey: event.ctrlKey,
        metaKey: event.metaKey,
        altKey: event.altKey,
        shiftKey: event.shiftKey,
        isComposing: event.nativeEvent.isComposing,
        keyCode: event.keyCode,
      },
      sendKey,
      canQueue,
    );
    if (action === null) return;
    event.preventDefault();
    if (action === "send") submit();
    else queue(action === "followUp" ? "follow_up" : "steer");
  };

  const empty = draft.trim() === "";
  return (
    <>
      <AttachmentTray
        items={attachments.items}
        problems={attachments.problems}
        noImagesFor={imagesRefused ? modelName : null}
        onRemove={attachments.remove}
        onDismissProblems={attachments.dismissProblems}
      />
      <form
        className={dropping ? "composer dropping" : "composer"}
        onSubmit={onSubmit}
        onDragOver={onDragOver}
        onDragLeave={() => setDropping(false)}
        onDrop={onDrop}
      >
        <button
          type="button"
          className="icon-button attach-button"
          data-testid="attach-button"
          aria-label={strings.attachments.attach}
          title={strings.attachments.attach}
          onClick={() => fileInput.current?.click()}
        >
          <PaperclipIcon />
        </button>
        <input
          ref={fileInput}
          type="file"
          multiple
          accept={ATTACH_ACCEPT}
          className="visually-hidden"
          data-testid="attach-input"
          tabIndex={-1}
          aria-hidden="true"
          onChange={(event) => {
            attachments.add(Array.from(event.target.files ?? []));
            event.target.value = "";
          }}
        />
        <textarea
          ref={input}
          className="composer-input"
          data-testid="composer-input"
          aria-label={strings.composerLabel}
          placeholder={
            sendKey === "ctrlEnter"
              ? canQueue
                ? strings.composerPlaceholderRunningCtrlEnter
                : strings.composerPlaceholderCtrlEnter
              : canQueue
                ? strings.composerPlaceholderRunning
                : strings.composerPlaceholder
          }
          rows={1}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
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
    </>
  );
}
