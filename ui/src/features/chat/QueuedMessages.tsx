// The queued steering and follow-up messages, as chips above the composer, until the loop consumes them. A
// waiting message can be cancelled; one a stopped run handed back can be sent now (or steered into the run in
// progress) or discarded. What each chip offers is ../../state/queue's `chipActions`.
import { memo } from "react";

import { useStrings } from "../../i18n/I18n";
import { chipActions, type ChipAction, type QueuedChip } from "../../state/queue";
import "./queue.css";

interface QueuedMessagesProps {
  queue: readonly QueuedChip[];
  runActive: boolean;
  onCancel: (chip: QueuedChip) => void;
  onSend: (chip: QueuedChip) => void;
}

export const QueuedMessages = memo(function QueuedMessages({ queue, runActive, onCancel, onSend }: QueuedMessagesProps) {
  const strings = useStrings();
  if (queue.length === 0) return null;
  const labels: Record<ChipAction, string> = {
    cancel: strings.queue.cancel,
    discard: strings.queue.discard,
    send: strings.queue.send,
    steer: strings.queue.steer,
  };
  const act = (chip: QueuedChip, action: ChipAction) => {
    if (action === "cancel" || action === "discard") onCancel(chip);
    else onSend(chip);
  };
  return (
    <ul className="queued-messages" data-testid="queued-messages" aria-label={strings.queue.label}>
      {queue.map((chip) => (
        <li
          key={chip.id}
          className={`queued-message ${chip.status}`}
          data-testid="queued-message"
          data-kind={chip.kind}
          data-status={chip.status}
          data-id={chip.id}
        >
          <span className={`queued-kind ${chip.kind}`}>{strings.queue.kind[chip.kind]}</span>
          <span className="queued-text" data-testid="queued-text" title={chip.text}>
            {chip.text}
          </span>
          <span className="queued-when">
            {chip.status === "held" ? strings.queue.held : strings.queue.waiting[chip.kind]}
          </span>
          {chipActions(chip, runActive).map((action) => (
            <button
              key={action}
              type="button"
              className={`queued-action ${action}`}
              data-testid={`queued-${action}`}
              disabled={chip.answering}
              onClick={() => act(chip, action)}
            >
              {labels[action]}
            </button>
          ))}
        </li>
      ))}
    </ul>
  );
});
