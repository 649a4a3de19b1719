// Versions and branches as the window shows them: the host's `MessageVersion`s (the user and assistant messages
// of the stored shown branch, in order) matched to the transcript's items, and the answers cut off by the length
// limit shown together with their continuations as one. Pure functions.
import type { MessageVersion } from "../ipc/wire";
import type { AssistantItem, TranscriptItem } from "./chat";
import type { BlockView } from "./assistant-blocks";

/** Where an item stands among its versions, and the store `seq` the version commands name it by. */
export interface ItemVersion {
  seq: number;
  version: number;
  versions: number;
}

/**
 * Each version to its item, in order: the next item of the same role whose message has the same timestamp (an
 * item whose message the host never confirmed, such as a prompt that failed, has none and takes no version). A
 * version no item matches is left out, so a transcript that differs from the store's (a failed save) still gets
 * every match that holds.
 */
export function matchVersions(
  transcript: readonly TranscriptItem[],
  versions: readonly MessageVersion[],
): Readonly<Record<string, ItemVersion>> {
  const matched: Record<string, ItemVersion> = {};
  let next = 0;
  for (const version of versions) {
    for (let index = next; index < transcript.length; index += 1) {
      const item = transcript[index];
      if (item === undefined || item.kind !== version.role || item.timestamp === undefined) continue;
      if (version.timestamp !== undefined && version.timestamp !== item.timestamp) continue;
      matched[item.id] = { seq: version.seq, version: version.version, versions: version.versions };
      next = index + 1;
      break;
    }
  }
  return matched;
}

/** What the transcript shows: an item, or an answer with the continuations that follow it merged in. */
export interface ShownItem {
  item: TranscriptItem;
  /** The items shown as this one, first to last (one, unless an answer was continued). */
  partIds: readonly string[];
}

/** The transcript as shown: each answer with its continuations (items marked `continuation`) as one answer. */
export function shownItems(transcript: readonly TranscriptItem[]): ShownItem[] {
  const shown: ShownItem[] = [];
  for (const item of transcript) {
    const previous = shown[shown.length - 1];
    if (item.kind === "assistant" && item.continuation === true && previous !== undefined && previous.item.kind === "assistant") {
      shown[shown.length - 1] = { item: joinedAnswer(previous.item, item), partIds: [...previous.partIds, item.id] };
    } else {
      shown.push({ item, partIds: [item.id] });
    }
  }
  return shown;
}

/**
 * One answer of two parts: the first part's id (so its rendered view stays), the blocks of both with the text at
 * the seam joined (the cut may fall inside a word or a code block), and the state of the last part.
 */
function joinedAnswer(first: AssistantItem, second: AssistantItem): AssistantItem {
  const head = first.blocks.slice(0, -1);
  const seamStart = first.blocks[first.blocks.length - 1];
  const seamEnd = second.blocks[0];
  let blocks: BlockView[];
  if (seamStart !== undefined && seamEnd !== undefined && seamStart.type === "text" && seamEnd.type === "text") {
    blocks = [...head, { type: "text", text: seamStart.text + seamEnd.text, done: seamEnd.done }, ...second.blocks.slice(1)];
  } else {
    blocks = [...first.blocks, ...second.blocks];
  }
  const joined: AssistantItem = { ...first, blocks, status: second.status, retried: second.retried };
  if (second.stopReason !== undefined) joined.stopReason = second.stopReason;
  if (second.errorMessage !== undefined) joined.errorMessage = second.errorMessage;
  else delete joined.errorMessage;
  return joined;
}

/** An answer's text as Markdown, for Copy: its text blocks in order (thinking and tool calls left out). */
export function answerMarkdown(item: AssistantItem): string {
  return item.blocks
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .filter((text) => text !== "")
    .join("\n\n");
}
