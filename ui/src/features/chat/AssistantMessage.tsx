// One assistant answer: thinking, streamed Markdown and tool cards in the order the model produced them, and,
// when the answer failed or was stopped, what happened, what to do and a Retry; once it ended, its tokens and cost.
import { memo } from "react";

import { useStrings } from "../../i18n/I18n";
import type { Language } from "../../i18n/strings";
import { MarkdownView } from "../../markdown/MarkdownView";
import { RenderBacklogContext, useCaughtUp, useNestedBacklog } from "../../markdown/render-backlog";
import type { AssistantItem, ToolRun } from "../../state/chat";
import { errorAdvice, toolCardStateOf } from "../../state/selectors";
import { AnswerUsage } from "./AnswerUsage";
import { AlertIcon } from "./icons";
import { ThinkingBlock } from "./ThinkingBlock";
import { useApprovalAnswers } from "./approval-context";
import { ToolCard } from "./ToolCard";

interface AssistantMessageProps {
  item: AssistantItem;
  tools: Readonly<Record<string, ToolRun>>;
  runActive: boolean;
  retryable: boolean;
  language: Language;
  onRetry: (assistantId: string) => void;
}

export const AssistantMessage = memo(function AssistantMessage({
  item,
  tools,
  runActive,
  retryable,
  language,
  onRetry,
}: AssistantMessageProps) {
  const strings = useStrings();
  const { approvals } = useApprovalAnswers();
  const backlog = useNestedBacklog();
  // An answer that ended is shown as ended only once its text is on screen.
  const status = useCaughtUp(backlog) ? item.status : "streaming";
  const empty = item.blocks.every((block) => block.type === "text" && block.text === "");
  return (
    <RenderBacklogContext.Provider value={backlog}>
      <article className="message assistant" data-testid="message-assistant" data-state={status} data-item-id={item.id}>
        <div className="avatar" aria-hidden="true">
          π
        </div>
        <div className="assistant-body">
          {item.blocks.map((block, index) => {
            switch (block.type) {
              case "thinking":
                return <ThinkingBlock key={index} block={block} />;
              case "text":
                return block.text === "" ? null : (
                  <div key={index} className="assistant-text" data-testid="assistant-text">
                    <MarkdownView text={block.text} growing={!block.done} />
                  </div>
                );
              case "toolCall":
                return (
                  <ToolCard
                    key={block.id === "" ? index : block.id}
                    call={block}
                    run={tools[block.id]}
                    state={toolCardStateOf(tools[block.id], runActive, approvals[block.id])}
                    language={language}
                  />
                );
              default:
                return null;
            }
          })}
          {status === "streaming" && empty ? (
            <div className="typing" aria-label={strings.thinking}>
              <span />
              <span />
              <span />
            </div>
          ) : null}
          {status === "error" || status === "stopped" || status === "interrupted" ? (
            <div className={`answer-error ${status}`} data-testid="assistant-error" role="note">
              <div className="answer-error-title" data-testid={item.status === "interrupted" ? "interrupted-label" : undefined}>
                <AlertIcon />
                {item.status === "error"
                  ? strings.errorTitle
                  : item.status === "interrupted"
                    ? strings.interruptedTitle
                    : strings.stoppedTitle}
              </div>
              {item.status === "error" && item.errorMessage !== undefined ? (
                <div className="answer-error-detail">{item.errorMessage}</div>
              ) : null}
              <div className="answer-error-advice">{strings.advice[errorAdvice(item)]}</div>
              {retryable ? (
                <button type="button" className="retry-button" data-testid="retry-button" onClick={() => onRetry(item.id)}>
                  {strings.retry}
                </button>
              ) : null}
            </div>
          ) : null}
          {status !== "streaming" ? <AnswerUsage usage={item.usage} language={language} /> : null}
        </div>
      </article>
    </RenderBacklogContext.Provider>
  );
});
