// The conversation: user messages and assistant answers, or, when there are none yet, a welcome (the setup card
// instead while no model is usable).
import { Fragment, type ReactNode, type RefObject } from "react";

import { useStrings } from "../../i18n/I18n";
import type { Language } from "../../i18n/strings";
import type { ChatState } from "../../state/chat";
import { canSend, resendableUserId, retryableAssistantId } from "../../state/selectors";
import { AssistantMessage } from "./AssistantMessage";
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
}

export function Transcript({ state, language, onRetry, scroller, content, setup = null, onResend }: TranscriptProps) {
  const strings = useStrings();
  const runActive = !canSend(state);
  const retryable = retryableAssistantId(state);
  const resendable = onResend === undefined ? null : resendableUserId(state);
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
          state.transcript.map((item) =>
            item.kind === "user" ? (
              <Fragment key={`${state.conversationId}/${item.id}`}>
                <UserMessage item={item} />
                {resendable === item.id ? (
                  <div className="user-row">
                    <button type="button" className="ghost-button" data-testid="resend-button" onClick={() => onResend?.(item.text)}>
                      {strings.resend}
                    </button>
                  </div>
                ) : null}
              </Fragment>
            ) : (
              <AssistantMessage
                key={`${state.conversationId}/${item.id}`}
                item={item}
                tools={state.tools}
                runActive={runActive}
                retryable={retryable === item.id}
                language={language}
                onRetry={onRetry}
              />
            ),
          )
        )}
      </div>
    </main>
  );
}
