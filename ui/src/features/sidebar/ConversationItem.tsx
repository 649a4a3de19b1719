// One conversation in the list: its title (click to open), and rename, export and delete actions. Renaming
// happens in place: Enter saves, Esc cancels.
import { useState, type KeyboardEvent } from "react";

import type { ConversationSummary, ExportFormat } from "../../ipc/conversations";
import { conversationTitle } from "./sidebar-model";
import type { SidebarStrings } from "./sidebar-strings";

interface ConversationItemProps {
  conversation: ConversationSummary;
  active: boolean;
  streaming: boolean;
  strings: SidebarStrings;
  onOpen: (conversationId: string) => void;
  onRename: (conversationId: string, title: string) => void;
  onDelete: (conversation: ConversationSummary) => void;
  onExport: (conversationId: string, format: ExportFormat) => void;
}

export function ConversationItem(props: ConversationItemProps) {
  const { conversation, active, streaming, strings } = props;
  const title = conversationTitle(conversation, strings);
  const [draft, setDraft] = useState<string | null>(null);

  const finishRename = (save: boolean) => {
    if (save && draft !== null && draft.trim() !== "" && draft.trim() !== title) {
      props.onRename(conversation.id, draft.trim());
    }
    setDraft(null);
  };

  const onRenameKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.nativeEvent.isComposing) return;
    if (event.key === "Enter") {
      event.preventDefault();
      finishRename(true);
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      finishRename(false);
    }
  };

  return (
    <li
      className={active ? "conversation-item active" : "conversation-item"}
      data-testid="conversation-item"
      data-conversation-id={conversation.id}
      data-active={active ? "true" : "false"}
      data-streaming={streaming ? "true" : "false"}
    >
      {draft !== null ? (
        <input
          className="conversation-rename-input"
          data-testid="conversation-rename-input"
          aria-label={strings.renameLabel}
          value={draft}
          autoFocus
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onRenameKey}
          onBlur={() => finishRename(true)}
        />
      ) : (
        <button
          type="button"
          className="conversation-open"
          data-testid="conversation-open"
          aria-current={active ? "true" : undefined}
          title={title}
          onClick={() => props.onOpen(conversation.id)}
        >
          <span className="conversation-title">{title}</span>
          {streaming ? (
            <span className="conversation-streaming" data-testid="conversation-streaming" title={strings.streaming}>
              <span className="streaming-dot" aria-hidden="true" />
              <span className="sidebar-visually-hidden">{strings.streaming}</span>
            </span>
          ) : null}
        </button>
      )}
      {draft === null ? (
        <span className="conversation-actions">
          <button
            type="button"
            className="conversation-action"
            data-testid="conversation-rename"
            aria-label={strings.rename}
            title={strings.rename}
            onClick={() => setDraft(conversation.title ?? "")}
          >
            ✎
          </button>
          <button
            type="button"
            className="conversation-action"
            data-testid="conversation-export-markdown"
            aria-label={strings.exportMarkdown}
            title={strings.exportMarkdown}
            onClick={() => props.onExport(conversation.id, "markdown")}
          >
            MD
          </button>
          <button
            type="button"
            className="conversation-action"
            data-testid="conversation-export-jsonl"
            aria-label={strings.exportJsonLines}
            title={strings.exportJsonLines}
            onClick={() => props.onExport(conversation.id, "jsonLines")}
          >
            {"{}"}
          </button>
          <button
            type="button"
            className="conversation-action danger"
            data-testid="conversation-delete"
            aria-label={strings.delete}
            title={strings.delete}
            onClick={() => props.onDelete(conversation)}
          >
            ✕
          </button>
        </span>
      ) : null}
    </li>
  );
}
