// Which finished answer a screen reader hears: the last text of an answer this window saw streaming, once, when
// its run has ended and the text is on screen; never a delta, never an answer loaded from history or shown by
// switching conversations. A long answer is announced by its beginning (ANNOUNCED_CHARS).
import type { ChatState } from "../../state/chat";

export interface AnswerWatch {
  conversationId: string;
  /** The assistant items seen streaming in the run being watched. */
  streamed: readonly string[];
}

export const NO_WATCH: AnswerWatch = { conversationId: "", streamed: [] };

/**
 * The most characters of an answer the live region is given. A screen reader reads a long answer's beginning,
 * and the user reads on in the transcript; a hidden region holding all of a long answer (a megabyte of text, a
 * word a line in its one-pixel box) cost the window a fifth of a second of layout as the run ended.
 */
export const ANNOUNCED_CHARS = 2_000;

/**
 * `text` cut to at most ANNOUNCED_CHARS (UTF-16 units), at the last word boundary before the cut when there is
 * one, ending in "…"; never between the two halves of a surrogate pair.
 */
export function announcedText(text: string): string {
  if (text.length <= ANNOUNCED_CHARS) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(ANNOUNCED_CHARS - 2)) ? ANNOUNCED_CHARS - 2 : ANNOUNCED_CHARS - 1;
  const cut = text.slice(0, end);
  const boundary = cut.search(/\s\S*$/);
  return `${(boundary > 0 ? cut.slice(0, boundary) : cut).trimEnd()}…`;
}

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
