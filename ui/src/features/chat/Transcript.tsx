// The conversation: user messages and assistant answers, or, when there are none yet, a welcome (the setup card
// instead while no model is usable). A conversation mounts its rows from its end (RowsFromEnd); a long one only
// those near the viewport (WindowedRows).
import { useMemo, useState, type ReactNode, type RefObject } from "react";

import { useStrings } from "../../i18n/I18n";
import type { Language } from "../../i18n/strings";
import type { ChatState } from "../../state/chat";
import { canSend, resendableUserId, retryableAssistantId } from "../../state/selectors";
import { shownItems, type ShownItem } from "../../state/versions";
import { AssistantMessage } from "./AssistantMessage";
import { EditMessage } from "./EditMessage";
import { AnswerActions, QuestionActions } from "./MessageActions";
import { MessageUndo, useMessageUndo } from "./MessageUndo";
import { RowsFromEnd } from "./RowsFromEnd";
import type { MessageIntents } from "./useMessageActions";
import type { BottomStick } from "./useStickToBottom";
import { UserMessage } from "./UserMessage";
import { WindowedRows } from "./WindowedRows";

/**
 * Conversations with more shown items than this mount only the rows near the viewport. Up to it every item is in
 * the DOM, as it always was: a few hundred messages open and scroll well in full, all their text stays findable
 * in the page, and the end-to-end tests, which look for messages, tool cards and buttons anywhere in the
 * transcript, see them all. Beyond it the full list is what makes a long conversation slow to open and to
 * scroll (each answer a rendered and sanitised Markdown view, each tool call a card).
 */
export const WINDOWED_ABOVE_ITEMS = 200;

interface TranscriptProps {
  state: ChatState;
  language: Language;
  onRetry: (assistantId: string) => void;
  scroller: RefObject<HTMLElement | null>;
  content: RefObject<HTMLDivElement | null>;
  /** The view following the bottom (useStickToBottom), which a long conversation's rows leave the scroll to. */
  stick: BottomStick;
  /** Shown in place of the welcome in an empty conversation. */
  setup?: ReactNode;
  /** Sends a message that failed to start again (its text is kept on the message). */
  onResend?: ((text: string) => void) | undefined;
  /** The message actions; none while a stored run is replayed. */
  messages?: MessageIntents | undefined;
}

export function Transcript({
  state,
  language,
  onRetry,
  scroller,
  content,
  stick,
  setup = null,
  onResend,
  messages,
}: TranscriptProps) {
  const strings = useStrings();
  const runActive = !canSend(state);
  const retryable = retryableAssistantId(state);
  const resendable = onResend === undefined ? null : resendableUserId(state);
  const [editingId, setEditingId] = useState<string | null>(null);
  const undo = useMessageUndo(messages);
  const shown = useMemo(() => shownItems(state.transcript), [state.transcript]);
  const lastId = shown[shown.length - 1]?.item.id;
  // Item ids count per conversation: the conversation's id in the key keeps one conversation's answer (and its
  // rendered Markdown) from being reused for another's.
  const rowKey = ({ item }: ShownItem) => `${state.conversationId}/${item.id}`;
  const renderRow = ({ item, partIds }: ShownItem): ReactNode =>
    item.kind === "user" ? (
      <>
        {editingId === item.id && messages !== undefined ? (
          <EditMessage
            text={item.text}
            onCancel={() => setEditingId(null)}
            onSend={(text) =>
              messages.edit(item.id, text).then((taken) => {
                if (taken) setEditingId(null);
                return taken;
              })
            }
          />
        ) : (
          <UserMessage item={item} />
        )}
        {messages !== undefined && editingId !== item.id ? (
          <QuestionActions
            item={item}
            version={state.versions[item.id]}
            messages={messages}
            onEdit={setEditingId}
            onDelete={undo.deletePair}
          />
        ) : null}
        {resendable === item.id ? (
          <div className="user-row">
            <button type="button" className="ghost-button" data-testid="resend-button" onClick={() => onResend?.(item.text)}>
              {strings.resend}
            </button>
          </div>
        ) : null}
      </>
    ) : (
      <>
        <AssistantMessage
          item={item}
          tools={state.tools}
          runActive={runActive}
          retryable={partIds.includes(retryable ?? "")}
          language={language}
          // A continued answer retries its last part; a plain one keeps the stable handler (the answer is
          // memoised, and re-renders only when it changes).
          onRetry={partIds.length === 1 ? onRetry : () => onRetry(partIds[partIds.length - 1] ?? item.id)}
        />
        {messages !== undefined ? (
          <AnswerActions
            item={item}
            version={state.versions[item.id]}
            last={item.id === lastId && !runActive}
            messages={messages}
          />
        ) : null}
      </>
    );
  return (
    <main className="transcript-scroll" data-testid="message-list" ref={scroller}>
      <div className="transcript" ref={content}>
        {state.transcript.length === 0 && setup !== null ? (
          setup
        ) : state.transcript.length === 0 ? (
          <div className="welcome">
            <div className="welcome-mark" aria-hidden="true">
              π
            </div>
            <h2>{strings.emptyTitle}</h2>
            <p className="empty-hint">{strings.emptyHint}</p>
          </div>
        ) : shown.length > WINDOWED_ABOVE_ITEMS ? (
          <WindowedRows
            key={state.conversationId}
            rows={shown}
            rowKey={rowKey}
            renderRow={renderRow}
            liveFrom={turnStart(shown)}
            scroller={scroller}
            stick={stick}
          />
        ) : (
          <RowsFromEnd
            key={state.conversationId}
            rows={shown}
            rowKey={rowKey}
            renderRow={renderRow}
            scroller={scroller}
            content={content}
            stick={stick}
          />
        )}
      </div>
      <MessageUndo undo={undo} />
    </main>
  );
}

/** Where the turn in progress starts: after the last question. */
function turnStart(shown: readonly ShownItem[]): number {
  for (let index = shown.length - 1; index >= 0; index -= 1) {
    if (shown[index]?.item.kind === "user") return index + 1;
  }
  return 0;
}
