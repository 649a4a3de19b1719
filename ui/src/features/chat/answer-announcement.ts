// Which finished answer a screen reader hears: the last text of an answer this window saw streaming, once, when
// its run has ended and the text is on screen; never a delta, never an answer loaded from history or shown by
// switching conversations.
import type { ChatState } from "../../state/chat";

export interface AnswerWatch {
  conversationId: string;
  /** The assistant items seen streaming in the run being watched. */
  streamed: readonly string[];
}

export const NO_WATCH: AnswerWatch = { conversationId: "", streamed: [] };

/** The watch after `state`, and the text to announce now (null: nothing). */
export function watchAnswers(
  watch: AnswerWatch,
  state: Pick<ChatState, "conversationId" | "runStatus" | "transcript" | "streamingAssistantId">,
  caughtUp: boolean,
): { watch: AnswerWatch; announce: FinishedAnswer | null } {
  const streamed = watch.conversationId === state.conversationId ? watch.streamed : [];
  const streaming = state.streamingAssistantId;
  const seen = streaming !== null && !streamed.includes(streaming) ? [...streamed, streaming] : streamed;
  if (state.runStatus !== "idle" || !caughtUp || seen.length === 0) {
    return { watch: { conversationId: state.conversationId, streamed: seen }, announce: null };
  }
  return { watch: { conversationId: state.conversationId, streamed: [] }, announce: lastAnswer(state.transcript, seen) };
}

/** The answer to announce: its transcript item and its text as the model wrote it (Markdown). */
export interface FinishedAnswer {
  itemId: string;
  source: string;
}

function lastAnswer(transcript: ChatState["transcript"], ids: readonly string[]): FinishedAnswer | null {
  for (let index = transcript.length - 1; index >= 0; index -= 1) {
    const item = transcript[index];
    if (item === undefined || item.kind !== "assistant" || !ids.includes(item.id)) continue;
    const text = item.blocks
      .flatMap((block) => (block.type === "text" ? [block.text] : []))
      .join("\n")
      .trim();
    if (text !== "") return { itemId: item.id, source: text };
  }
  return null;
}
