// The actions under a message (`message-actions`): for an answer Copy (its Markdown), Regenerate, the version
// navigator and, when it stopped at the length limit, the truncation note and Continue; for a question Edit,
// Delete and the navigator. Presentational: what the buttons do is the caller's (useMessageActions).
import { memo, useState } from "react";

import { useStrings } from "../../i18n/I18n";
import type { AssistantItem, UserItem } from "../../state/chat";
import { answerMarkdown, type ItemVersion } from "../../state/versions";
import { copyText, pageClipboard } from "../settings/about";
import type { MessageIntents } from "./useMessageActions";
import { VersionNav } from "./VersionNav";

interface AnswerActionsProps {
  item: AssistantItem;
  /** The answer's version, once the host named it (the first part's, for a continued answer). */
  version: ItemVersion | undefined;
  /** This is the transcript's last answer and the run settled: Continue may be offered. */
  last: boolean;
  messages: MessageIntents;
}

// Memoised: a streaming answer re-renders the transcript every frame, its action bars need not.
export const AnswerActions = memo(function AnswerActions({ item, version, last, messages }: AnswerActionsProps) {
  const strings = useStrings().messageActions;
  const [copied, setCopied] = useState(false);
  if (item.status === "streaming") return null;
  const copy = () => {
    void copyText(answerMarkdown(item), pageClipboard()).then((done) => {
      setCopied(done);
      if (done) window.setTimeout(() => setCopied(false), 1500);
    });
  };
  return (
    <div className="message-actions answer-actions" data-testid="message-actions" role="toolbar" aria-label={strings.label}>
      {item.status === "truncated" ? (
        <span className="truncated-note" data-testid="truncated-label">
          {strings.truncated}
        </span>
      ) : null}
      {item.status === "truncated" && last ? (
        <button type="button" className="ghost-button" data-testid="continue-button" onClick={messages.continueAnswer}>
          {strings.continueAnswer}
        </button>
      ) : null}
      <button type="button" className="ghost-button" data-testid="copy-button" onClick={copy}>
        {copied ? strings.copied : strings.copy}
      </button>
      {version !== undefined ? (
        <button type="button" className="ghost-button" data-testid="regenerate-button" onClick={() => messages.regenerate(item.id)}>
          {strings.regenerate}
        </button>
      ) : null}
      {version !== undefined && version.versions > 1 ? (
        <VersionNav version={version} onStep={(step) => messages.showVersion(item.id, step)} />
      ) : null}
    </div>
  );
});

interface QuestionActionsProps {
  item: UserItem;
  version: ItemVersion | undefined;
  messages: MessageIntents;
  onEdit: (userId: string) => void;
  onDelete: (userId: string) => void;
}

export const QuestionActions = memo(function QuestionActions({ item, version, messages, onEdit, onDelete }: QuestionActionsProps) {
  const strings = useStrings().messageActions;
  if (item.delivery !== "sent" || version === undefined) return null;
  return (
    <div className="message-actions question-actions" data-testid="message-actions" role="toolbar" aria-label={strings.label}>
      {version.versions > 1 ? <VersionNav version={version} onStep={(step) => messages.showVersion(item.id, step)} /> : null}
      <button type="button" className="ghost-button" data-testid="edit-button" onClick={() => onEdit(item.id)}>
        {strings.edit}
      </button>
      <button type="button" className="ghost-button" data-testid="delete-button" onClick={() => onDelete(item.id)}>
        {strings.delete}
      </button>
    </div>
  );
});
