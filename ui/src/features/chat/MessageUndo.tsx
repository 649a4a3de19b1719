// Deleting a question with its answer, and the toast that undoes it until the host's undo window closes (as
// the sidebar does for conversations).
import { useCallback, useEffect, useState } from "react";

import { useStrings } from "../../i18n/I18n";
import type { DeletedMessages } from "../../ipc/wire";
import { undoDelayMs } from "../sidebar/sidebar-model";
import type { MessageIntents } from "./useMessageActions";

export interface MessageUndoState {
  deleted: DeletedMessages | null;
  deletePair: (userId: string) => void;
  undoDelete: () => void;
}

export function useMessageUndo(messages: MessageIntents | undefined): MessageUndoState {
  const [deleted, setDeleted] = useState<DeletedMessages | null>(null);
  useEffect(() => {
    if (deleted === null) return;
    const timer = window.setTimeout(() => setDeleted(null), undoDelayMs(deleted.undoUntil, Date.now()));
    return () => window.clearTimeout(timer);
  }, [deleted]);
  const deletePair = useCallback(
    (userId: string) => {
      void messages?.deletePair(userId).then((result) => {
        if (result !== null) setDeleted(result);
      });
    },
    [messages],
  );
  const undoDelete = useCallback(() => {
    if (deleted === null) return;
    setDeleted(null);
    messages?.restorePair(deleted);
  }, [deleted, messages]);
  return { deleted, deletePair, undoDelete };
}

export function MessageUndo({ undo }: { undo: MessageUndoState }) {
  const strings = useStrings().messageActions;
  if (undo.deleted === null) return null;
  return (
    <div className="message-toast" role="status" data-testid="message-toast">
      <span>{strings.deleted}</span>
      <button type="button" data-testid="undo-message-delete" onClick={undo.undoDelete}>
        {strings.undo}
      </button>
    </div>
  );
}
