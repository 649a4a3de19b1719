// Rebuilding a streaming assistant message from wire deltas: pure functions over immutable block views.
// The wire drops pi's `partial` snapshots (wire.rs), so these functions are the only place the UI grows a
// message; `message_end` then replaces the blocks with the final message, which is authoritative. On the lean
// stream the window asks for (desktop-host `wire::lean`), a block's text is sent once: a `*_end` without `content`
// and a final block marked `streamed` keep the text the deltas built.
import type { AssistantBlock, AssistantMessageEvent } from "../ipc/wire";

export interface TextBlockView {
  type: "text";
  text: string;
  /** The block's `*_end` arrived (or the message ended). */
  done: boolean;
}

export interface ThinkingBlockView {
  type: "thinking";
  text: string;
  redacted: boolean;
  done: boolean;
}

export interface ToolCallBlockView {
  type: "toolCall";
  id: string;
  name: string;
  /** The raw argument JSON as streamed so far. */
  argsText: string;
  /** The parsed arguments: the start block's, then the final ones at `toolcall_end`. */
  arguments: unknown;
  done: boolean;
}

export type BlockView = TextBlockView | ThinkingBlockView | ToolCallBlockView;

/**
 * The views of a complete message's blocks (from `message_start`, `message_end` or a loaded conversation). A block
 * marked `streamed` takes its text from `streamed`, the blocks its deltas built.
 */
export function blocksFromMessage(
  content: readonly AssistantBlock[],
  done: boolean,
  streamed: readonly BlockView[] = [],
): BlockView[] {
  return content.map((block, index) => blockFromContent(block, done, streamed[index]));
}

function blockFromContent(block: AssistantBlock, done: boolean, built: BlockView | undefined): BlockView {
  switch (block.type) {
    case "text": {
      const text = block.streamed === true && built?.type === "text" ? built.text : block.text;
      return { type: "text", text, done };
    }
    case "thinking": {
      const text = block.streamed === true && built?.type === "thinking" ? built.text : block.thinking;
      return { type: "thinking", text, redacted: block.redacted === true, done };
    }
    case "toolCall":
      return {
        type: "toolCall",
        id: block.id,
        name: block.name,
        argsText: "",
        arguments: block.arguments,
        done,
      };
    default:
      return unknownBlock(block);
  }
}

/** A block type this UI does not know (a newer host) shows as an empty, finished text block. */
function unknownBlock(_block: never): BlockView {
  return { type: "text", text: "", done: true };
}

/** Applies one assistant event to the blocks; returns a new array, never mutates. */
export function applyAssistantEvent(blocks: readonly BlockView[], event: AssistantMessageEvent): BlockView[] {
  switch (event.type) {
    case "text_start":
      return setBlock(blocks, event.contentIndex, { type: "text", text: event.block?.text ?? "", done: false });
    case "text_delta":
      return updateBlock(blocks, event.contentIndex, (block) =>
        block?.type === "text"
          ? { ...block, text: block.text + event.delta }
          : { type: "text", text: event.delta, done: false },
      );
    case "text_end":
      return updateBlock(blocks, event.contentIndex, (block) => ({
        type: "text",
        text: event.content ?? (block?.type === "text" ? block.text : ""),
        done: true,
      }));
    case "thinking_start":
      return setBlock(blocks, event.contentIndex, {
        type: "thinking",
        text: event.block?.thinking ?? "",
        redacted: event.block?.redacted === true,
        done: false,
      });
    case "thinking_delta":
      return updateBlock(blocks, event.contentIndex, (block) =>
        block?.type === "thinking"
          ? { ...block, text: block.text + event.delta }
          : { type: "thinking", text: event.delta, redacted: false, done: false },
      );
    case "thinking_end":
      return updateBlock(blocks, event.contentIndex, (block) => ({
        type: "thinking",
        text: event.content ?? (block?.type === "thinking" ? block.text : ""),
        redacted: block?.type === "thinking" ? block.redacted : false,
        done: true,
      }));
    case "toolcall_start":
      return setBlock(blocks, event.contentIndex, {
        type: "toolCall",
        id: event.block?.id ?? "",
        name: event.block?.name ?? "",
        argsText: "",
        arguments: event.block?.arguments ?? {},
        done: false,
      });
    case "toolcall_delta":
      return updateBlock(blocks, event.contentIndex, (block) =>
        block?.type === "toolCall"
          ? { ...block, argsText: block.argsText + event.delta }
          : { type: "toolCall", id: "", name: "", argsText: event.delta, arguments: {}, done: false },
      );
    case "toolcall_end":
      return updateBlock(blocks, event.contentIndex, (block) => ({
        type: "toolCall",
        id: event.toolCall.id,
        name: event.toolCall.name,
        argsText: block?.type === "toolCall" ? block.argsText : "",
        arguments: event.toolCall.arguments,
        done: true,
      }));
    default:
      return ignoreUnknownAssistantEvent(event, blocks);
  }
}

/** Unknown assistant event types (a newer host) change nothing; the `never` keeps the switch exhaustive. */
function ignoreUnknownAssistantEvent(_event: never, blocks: readonly BlockView[]): BlockView[] {
  return [...blocks];
}

function setBlock(blocks: readonly BlockView[], index: number, block: BlockView): BlockView[] {
  return updateBlock(blocks, index, () => block);
}

function updateBlock(
  blocks: readonly BlockView[],
  index: number,
  update: (block: BlockView | undefined) => BlockView,
): BlockView[] {
  if (!Number.isInteger(index) || index < 0 || index > blocks.length + 64) {
    // A nonsensical index is a host bug; dropping the delta keeps the transcript sane.
    return [...blocks];
  }
  const next = [...blocks];
  while (next.length < index) {
    next.push({ type: "text", text: "", done: true });
  }
  next[index] = update(blocks[index]);
  return next;
}

/** The concatenated visible answer text (used for copy and tests). */
export function answerText(blocks: readonly BlockView[]): string {
  return blocks
    .filter((block): block is TextBlockView => block.type === "text")
    .map((block) => block.text)
    .join("");
}
