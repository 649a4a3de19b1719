// Tokenizer overrides that try four of marked's block rules only where the text could match them. Those rules
// are large patterns WebKit's regular expression engine takes microseconds to reject even when the first
// characters already rule them out; tried at every block start, they were a third of the render worker's time on
// a long answer (measured in the app's WebKitGTK 2.50). Each guard tests a condition every match of its rule
// meets (./block-rule-guards.test.ts checks that against marked's own patterns): where it fails the rule cannot
// match (`undefined`: no token), elsewhere marked runs the rule itself (`false`).

/** An HTML block starts with `<` after at most three spaces, whichever of its seven kinds it is. */
const HTML_START = /^ {0,3}</;
/** A thematic break is three or more `-`, `_` or `*`, after at most three spaces. */
const HR_START = /^ {0,3}[-_*]/;
const BLOCKQUOTE_START = /^ {0,3}>/;
/** A table's second line is its delimiter row: after at most three spaces, `|`, `:` or `-`. */
const TABLE_DELIMITER_START = /^ {0,3}[|:-]/;

const runWhere = (start: RegExp) => (src: string) => (start.test(src) ? false : undefined);

export const blockRuleGuards = {
  html: runWhere(HTML_START),
  hr: runWhere(HR_START),
  blockquote: runWhere(BLOCKQUOTE_START),
  table(src: string): false | undefined {
    const lineEnd = src.indexOf("\n");
    return lineEnd >= 0 && TABLE_DELIMITER_START.test(src.slice(lineEnd + 1, lineEnd + 5)) ? false : undefined;
  },
};
