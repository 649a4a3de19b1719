// How tall a transcript row is likely to be before it was ever mounted: the windowed transcript places the rows
// it has not measured by these guesses. They need not be exact (a mounted row is measured and the rows after it
// move), only close on average, so that the scrollbar and a jump to a far position land near the right rows.
import type { ShownItem } from "../../state/versions";

/** One line of message text (0.95rem at line-height 1.6, give or take). */
const LINE_PX = 24;
/**
 * Characters per line of a message at the transcript's width (some 85 fit in 780 px less the avatar and padding;
 * fewer, for the lines that paragraphs and list items leave short). By length alone: an answer of megabytes is
 * not read through for each guess.
 */
const CHARS_PER_LINE = 70;
/** A question's bubble padding and its action bar (Edit, Delete) beside the text. */
const USER_CHROME_PX = 60;
/** An answer's header space, its bottom margin and its action bar (Copy, Regenerate). */
const ANSWER_CHROME_PX = 48;
/** A collapsed tool card and the space around it. */
const TOOL_CARD_PX = 56;
/** A collapsed thinking block. */
const THINKING_PX = 40;

function textLines(text: string): number {
  return Math.max(1, Math.ceil(text.length / CHARS_PER_LINE));
}

export function estimateRowHeight(row: ShownItem | undefined): number {
  if (row === undefined) return USER_CHROME_PX + LINE_PX;
  const { item } = row;
  if (item.kind === "user") return USER_CHROME_PX + textLines(item.text) * LINE_PX;
  let height = ANSWER_CHROME_PX;
  for (const block of item.blocks) {
    if (block.type === "text") height += textLines(block.text) * LINE_PX;
    else if (block.type === "thinking") height += THINKING_PX;
    else height += TOOL_CARD_PX;
  }
  return height;
}
