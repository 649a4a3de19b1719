// marked's GFM inline text rule, rewritten without its lookbehind. WebKit's regular expression JIT does not take
// a pattern with a lookbehind and runs it in its interpreter, about 18 times slower (measured in the app's
// WebKitGTK 2.50: 10.6 against 0.6 ms on a 42 KB paragraph): this rule is tried on every stretch of plain text,
// so it set how fast the window renders prose.
//
// The lookbehind stops a text run before "www." when the character before it is a space, `*`, `_`, `~` or `(`.
// Here the run stops after consuming that character instead (the same end), and a run whose first character is
// that character (nothing consumed after it yet) is its own alternative. ./inline-text-rule.test.ts checks that
// both rules end every run at the same place; a marked whose rule is not the one rewritten here keeps its own.
import { Tokenizer, type Tokens } from "marked";

/** The rule as marked 18 has it (`Lexer.rules.inline.gfm.text`). */
export const MARKED_INLINE_TEXT =
  "^(?:[^a-zA-Z0-9](?=(?:mailto|xmpp):)|(`+|~+|[^`~])(?:(?=[`~])|(?= {2,}\\n)|(?=[a-zA-Z0-9.!#$%&'*+\\/=?_`{\\|}~-]+@)|[\\s\\S]*?(?:(?=[\\\\<!\\[`*~_]|\\b_|[hH][tT][tT][pP][sS]?|[fF][tT][pP]:\\/\\/|(?<![^\\s*_~(])www\\.|$)|[^ ](?= {2,}\\n)|[^a-zA-Z0-9](?=(?:mailto|xmpp):)|[^a-zA-Z0-9.!#$%&'*+\\/=?_`{\\|}~-](?=[a-zA-Z0-9.!#$%&'*+\\/=?_`{\\|}~-]+@))))";

export const INLINE_TEXT = new RegExp(
  "^(?:[^a-zA-Z0-9](?=(?:mailto|xmpp):)|(?:~+|[\\s*_(])(?=www\\.)|(`+|~+|[^`~])(?:(?=[`~])|(?= {2,}\\n)|(?=[a-zA-Z0-9.!#$%&'*+\\/=?_`{\\|}~-]+@)|[\\s\\S]*?(?:(?=[\\\\<!\\[`*~_]|\\b_|[hH][tT][tT][pP][sS]?|[fF][tT][pP]:\\/\\/|$)|[^ ](?= {2,}\\n)|[^a-zA-Z0-9](?=(?:mailto|xmpp):)|[^a-zA-Z0-9.!#$%&'*+\\/=?_`{\\|}~-](?=[a-zA-Z0-9.!#$%&'*+\\/=?_`{\\|}~-]+@)|[\\s*_~(](?=www\\.))))",
);

const RULES = { inline: { text: INLINE_TEXT } };

/**
 * A tokenizer override for `inlineText`: marked's own method, run with the rule above. `false` (marked's own
 * rule) when the lexer's rule is not the one rewritten here.
 */
export function inlineText(this: Tokenizer, src: string): Tokens.Text | false | undefined {
  if (this.rules.inline.text.source !== MARKED_INLINE_TEXT) return false;
  const view = { rules: RULES, lexer: this.lexer } as unknown as Tokenizer;
  return Tokenizer.prototype.inlineText.call(view, src);
}
