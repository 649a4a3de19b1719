// What a turn sent, rebuilt from a stored run: the conversation before the run, then every message that ended in
// the run before that turn's request went (the prompt, tool results, steering). Pure.
import type { RunReplay } from "../../ipc/inspector";
import type { AgentMessage } from "../../ipc/pi";

export interface SentMessage {
  role: string;
  text: string;
}

/** The longest text shown per message; the panel is for reading the shape, the transcript for the whole. */
export const SENT_TEXT_CHARS = 400;

/** The messages the request of turn `turnIndex` (from 1) carried, or null when the log has no such request. */
export function sentMessages(replay: RunReplay, turnIndex: number): SentMessage[] | null {
  const ended: AgentMessage[] = [];
  let requests = 0;
  for (const line of replay.lines) {
    const envelope = line.envelope;
    if (envelope.kind === "notice" && envelope.notice.type === "turn_request") {
      requests += 1;
      if (requests === turnIndex) return [...replay.before, ...ended].map(describe);
    }
    if (envelope.kind === "event" && envelope.event.type === "message_end") ended.push(envelope.event.message);
  }
  return null;
}

function describe(message: AgentMessage): SentMessage {
  const content: unknown = (message as { content?: unknown }).content;
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content
            .map((part: { type?: string; text?: string; name?: string; arguments?: unknown }) =>
              part.type === "toolCall" ? `${part.name ?? ""}(${JSON.stringify(part.arguments ?? {})})` : (part.text ?? ""),
            )
            .filter((part) => part !== "")
            .join("\n")
        : "";
  return {
    role: message.role,
    text: text.length > SENT_TEXT_CHARS ? `${text.slice(0, SENT_TEXT_CHARS)}…` : text,
  };
}
