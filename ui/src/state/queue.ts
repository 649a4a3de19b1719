// A conversation's queued steering and follow-up messages as the window shows them (chips above the composer):
// folded from the host's queue notices, plus the one fact only the window knows (an answer to a chip is on its
// way). What a chip offers follows from its status and whether a run is in progress. Pure functions.
import type { HostNotice } from "../ipc/wire";
import type { QueuedMessage } from "../ipc/bindings/QueuedMessage";

export interface QueuedChip extends QueuedMessage {
  /** Cancel, discard or send was pressed and the host has not answered yet (its buttons wait). */
  answering: boolean;
}

/** What a chip's buttons do. */
export type ChipAction = "cancel" | "discard" | "send" | "steer";

/** The queue notices; every other notice leaves the queue as it is. */
export type QueueNotice = Extract<
  HostNotice,
  { type: "message_queued" | "queued_message_consumed" | "queued_message_cancelled" | "queued_messages_held" }
>;

export function isQueueNotice(notice: HostNotice): notice is QueueNotice {
  switch (notice.type) {
    case "message_queued":
    case "queued_message_consumed":
    case "queued_message_cancelled":
    case "queued_messages_held":
      return true;
    default:
      return false;
  }
}

/** Chips for the messages of a snapshot. */
export function chipsOf(messages: readonly QueuedMessage[]): QueuedChip[] {
  return messages.map((message) => ({ ...message, answering: false }));
}

/**
 * Folds one queue notice: a queued (or changed) message is shown in id order; a consumed or cancelled one goes;
 * held ones wait for the user. Applying a notice twice changes nothing more.
 */
export function applyQueueNotice(queue: readonly QueuedChip[], notice: QueueNotice): readonly QueuedChip[] {
  switch (notice.type) {
    case "message_queued": {
      const chip: QueuedChip = { ...notice.message, answering: false };
      const others = queue.filter((queued) => queued.id !== chip.id);
      return [...others, chip].sort((left, right) => left.id - right.id);
    }
    case "queued_message_consumed":
    case "queued_message_cancelled":
      return queue.some((queued) => queued.id === notice.id) ? queue.filter((queued) => queued.id !== notice.id) : queue;
    case "queued_messages_held":
      return queue.map((queued) =>
        notice.ids.includes(queued.id) ? { ...queued, status: "held" as const, answering: false } : queued,
      );
    default:
      return ignoreUnknown(notice, queue);
  }
}

function ignoreUnknown(_notice: never, queue: readonly QueuedChip[]): readonly QueuedChip[] {
  return queue;
}

/** Marks a chip as answered (or no longer) by the window. */
export function withAnswering(queue: readonly QueuedChip[], id: number, answering: boolean): readonly QueuedChip[] {
  return queue.map((queued) => (queued.id === id ? { ...queued, answering } : queued));
}

/**
 * A chip's buttons: during a run a waiting message can be cancelled and a held one steered in or discarded;
 * between runs any message can be sent now (as a prompt) or discarded.
 */
export function chipActions(chip: QueuedChip, runActive: boolean): ChipAction[] {
  if (runActive) return chip.status === "waiting" ? ["cancel"] : ["steer", "discard"];
  return ["send", "discard"];
}
