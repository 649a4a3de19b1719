// The intents of the message actions: regenerate, edit, switch versions, delete a pair and undo it, continue an
// answer cut off by the length limit. Each names its message by the store `seq` the host's versions gave it.
// Between runs regenerate and edit cut the transcript at once (the new version streams in its place; a refusal
// brings it back); during a run they still go to the host, which refuses them with `run_active`, and its
// reason shows in the banner: never ignored.
import { useCallback, useMemo, type Dispatch } from "react";

import {
  continueAnswer as continueAnswerCommand,
  deleteMessagePair,
  editMessage,
  regenerate as regenerateCommand,
  restoreMessages,
  showVersion as showVersionCommand,
  toCommandError,
} from "../../ipc/backend";
import type { AppState, DeletedMessages, RunAccepted } from "../../ipc/wire";
import type { ChatAction, ChatState } from "../../state/chat";
import { canSend } from "../../state/selectors";
import type { WindowAction } from "../../state/window";

export interface MessageIntents {
  /** A new version of this answer. */
  regenerate: (assistantId: string) => void;
  /** Sends `text` in place of this question; resolves whether the host took it (the editor closes then). */
  edit: (userId: string, text: string) => Promise<boolean>;
  /** Shows the previous (-1) or next (1) version of this message. */
  showVersion: (itemId: string, step: -1 | 1) => void;
  /** Deletes this question and its answer; resolves with what undoes it (null when refused). */
  deletePair: (userId: string) => Promise<DeletedMessages | null>;
  /** Undoes a deletion. */
  restorePair: (deleted: DeletedMessages) => void;
  /** Continues the last answer, cut off by the length limit. */
  continueAnswer: () => void;
}

export function useMessageActions(
  dispatch: Dispatch<WindowAction>,
  view: ChatState,
  acceptRun: (conversationId: string, accepted: RunAccepted) => void,
): MessageIntents {
  const conversationId = view.conversationId;
  const idle = canSend(view);
  const versions = view.versions;

  const chat = useCallback(
    (action: ChatAction) => dispatch({ type: "chat", conversationId, action }),
    [dispatch, conversationId],
  );
  const failed = useCallback(
    (command: string) => (error: unknown) => chat({ type: "command_failed", command, error: toCommandError(error) }),
    [chat],
  );
  const replaced = useCallback((appState: AppState) => dispatch({ type: "conversation_replaced", appState }), [dispatch]);

  const regenerate = useCallback(
    (assistantId: string) => {
      const version = versions[assistantId];
      if (version === undefined) return;
      if (idle) chat({ type: "regenerate_submitted", assistantId });
      regenerateCommand(conversationId, version.seq).then(
        (accepted) => acceptRun(conversationId, accepted),
        failed("regenerate"),
      );
    },
    [versions, idle, chat, conversationId, acceptRun, failed],
  );

  const edit = useCallback(
    (userId: string, text: string): Promise<boolean> => {
      const version = versions[userId];
      if (version === undefined || text.trim() === "") return Promise.resolve(false);
      if (idle) chat({ type: "edit_submitted", userId, text });
      return editMessage(conversationId, version.seq, text.trim()).then(
        (accepted) => {
          acceptRun(conversationId, accepted);
          return true;
        },
        (error: unknown) => {
          failed("edit_message")(error);
          return false;
        },
      );
    },
    [versions, idle, chat, conversationId, acceptRun, failed],
  );

  const showVersion = useCallback(
    (itemId: string, step: -1 | 1) => {
      const version = versions[itemId];
      if (version === undefined) return;
      showVersionCommand(conversationId, version.seq, step).then(replaced, failed("show_version"));
    },
    [versions, conversationId, replaced, failed],
  );

  const deletePair = useCallback(
    (userId: string): Promise<DeletedMessages | null> => {
      const version = versions[userId];
      if (version === undefined) return Promise.resolve(null);
      return deleteMessagePair(conversationId, version.seq).then(
        (result) => {
          replaced(result.state);
          return result.deleted;
        },
        (error: unknown) => {
          failed("delete_message_pair")(error);
          return null;
        },
      );
    },
    [versions, conversationId, replaced, failed],
  );

  const restorePair = useCallback(
    (deleted: DeletedMessages) => {
      restoreMessages(conversationId, deleted.seqs).then(replaced, failed("restore_messages"));
    },
    [conversationId, replaced, failed],
  );

  const continueAnswer = useCallback(() => {
    if (idle) chat({ type: "continue_answer_submitted" });
    continueAnswerCommand(conversationId).then(
      (accepted) => acceptRun(conversationId, accepted),
      failed("continue_answer"),
    );
  }, [idle, chat, conversationId, acceptRun, failed]);

  return useMemo(
    () => ({ regenerate, edit, showVersion, deletePair, restorePair, continueAnswer }),
    [regenerate, edit, showVersion, deletePair, restorePair, continueAnswer],
  );
}
