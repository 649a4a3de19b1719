// Which finished answer a screen reader hears: the last text of an answer this window saw streaming, once, when
// its run has ended and the text is on screen; never a delta, never an answer loaded from history or shown by
// switching conversations. A run whose envelopes all came in one delivery (a short answer from a fast model) is
// never seen streaming: its answer is found among the items it appended to the transcript. A long answer is
// announced by its beginning (ANNOUNCED_CHARS).
import type { ChatState } from "../../state/chat";

export interface AnswerWatch {
  conversationId: string;
  /** The assistant items seen streaming in the run being watched. */
  streamed: readonly string[];
  /** The conversation as the last idle look found it: its highest run, and its transcript's length and last item. */
  idle: IdleLook;
}

interface IdleLook {
  runId: number;
  length: number;
  lastItemId: string | null;
}

export const NO_WATCH: AnswerWatch = { conversationId: "", streamed: [], idle: { runId: 0, length: 0, lastItemId: null } };

type Watched = Pick<ChatState, "conversationId" | "runStatus" | "transcript" | "streamingAssistantId" | "lastRunId">;

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
  state: Watched,
  caughtUp: boolean,
): { watch: AnswerWatch; announce: FinishedAnswer | null } {
  const same = watch.conversationId === state.conversationId;
  // Another conversation shown: what it holds now is history, not something this window saw happen.
  const idle = same ? watch.idle : idleLook(state);
  const streamed = same ? watch.streamed : [];
  const streaming = state.streamingAssistantId;
  const seen = streaming !== null && !streamed.includes(streaming) ? [...streamed, streaming] : streamed;
  if (state.runStatus !== "idle" || !caughtUp) {
    return { watch: { conversationId: state.conversationId, streamed: seen, idle }, announce: null };
  }
  const announce =
    seen.length > 0
      ? lastAnswer(state.transcript, seen)
      : state.lastRunId > idle.runId
        ? lastAnswer(state.transcript, appendedAssistants(state.transcript, idle))
        : null;
  return { watch: { conversationId: state.conversationId, streamed: [], idle: idleLook(state) }, announce };
}

function idleLook(state: Watched): IdleLook {
  return {
    runId: state.lastRunId,
    length: state.transcript.length,
    lastItemId: state.transcript[state.transcript.length - 1]?.id ?? null,
  };
}

/** The assistant items appended since `idle`; none when the transcript was not only appended to (replaced). */
function appendedAssistants(transcript: ChatState["transcript"], idle: IdleLook): string[] {
  const kept = idle.length === 0 ? null : (transcript[idle.length - 1]?.id ?? null);
  if (kept !== idle.lastItemId) return [];
  return transcript.slice(idle.length).flatMap((item) => (item.kind === "assistant" ? [item.id] : []));
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
