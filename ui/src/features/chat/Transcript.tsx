// The conversation: user messages and assistant answers, or, when there are none yet, a welcome (the setup card
// instead while no model is usable).
import { Fragment, useState, type ReactNode, type RefObject } from "react";

import { useStrings } from "../../i18n/I18n";
import type { Language } from "../../i18n/strings";
import type { ChatState } from "../../state/chat";
import { canSend, resendableUserId, retryableAssistantId } from "../../state/selectors";
import { shownItems } from "../../state/versions";
import { AssistantMessage } from "./AssistantMessage";
import { EditMessage } from "./EditMessage";
import { AnswerActions, QuestionActions } from "./MessageActions";
import { MessageUndo, useMessageUndo } from "./MessageUndo";
import type { MessageIntents } from "./useMessageActions";
import { UserMessage } from "./UserMessage";

interface TranscriptProps {
  state: ChatState;
  language: Language;
  onRetry: (assistantId: string) => void;
  scroller: RefObject<HTMLElement | null>;
  content: RefObject<HTMLDivElement | null>;
  /** Shown in place of the welcome in an empty conversation. */
  setup?: ReactNode;
  /** Sends a message that failed to start again (its text is kept on the message). */
  onResend?: ((text: string) => void) | undefined;
  /** The message actions; none while a stored run is replayed. */
  messages?: MessageIntents | undefined;
}

export function Transcript({ state, language, onRetry, scroller, content, setup = null, onResend, messages }: TranscriptProps) {
  const strings = useStrings();
  const runActive = !canSend(state);
  const retryable = retryableAssistantId(state);
  const resendable = onResend === undefined ? null : resendableUserId(state);
  const [editingId, setEditingId] = useState<string | null>(null);
  const undo = useMessageUndo(messages);
  const shown = shownItems(state.transcript);
  const lastId = shown[shown.length - 1]?.item.id;
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
        ) : (
          // Item ids count per conversation: the conversation's id in the key keeps one conversation's answer
          // (and its rendered Markdown) from being reused for another's.
          shown.map(({ item, partIds }) =>
            item.kind === "user" ? (
              <Fragment key={`${state.conversationId}/${item.id}`}>
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
              </Fragment>
            ) : (
              <Fragment key={`${state.conversationId}/${item.id}`}>
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
              </Fragment>
            ),
          )
        )}
      </div>
      <MessageUndo undo={undo} />
    </main>
  );
}
