// TeX math in Markdown, typeset by KaTeX into HTML (no DOM needed, so it runs in the render worker with the rest).
//
// Syntax, as the usual Markdown math extensions read it:
// - blocks: a line `$$` (or `\[`) alone opens, a line ending in `$$` (or `\]`) closes; `$$…$$` on one line is a
//   block too. Like a fenced code block, an open block runs to the end of the text, so nothing after its opening
//   line is final until it closes (the incremental renderer relies on that). Until it closes it shows its source.
// - inline: `$…$`, `\(…\)`, and `$$…$$` or `\[…\]` inside a paragraph (displayed). A `$` opens only when the
//   next character is not a space, and closes only after a non-space and when no digit follows, so prices such as
//   "$5 and $10" stay text; a `$…$` never crosses a code span. `\$` is a dollar sign.
//
// Safety: KaTeX runs with `trust: false` (no \href, \url, \includegraphics, \htmlClass, \htmlId, \htmlStyle or
// \htmlData), sizes capped at MAX_SIZE_EM and macro expansion at MAX_EXPAND; its styles travel aside
// (./inline-style) and its output still goes through ./sanitize like every block.
import katex from "katex";
import type { MarkedExtension, Tokens } from "marked";

import { withStylesAside } from "./inline-style";

/** The largest size (em) a formula may ask for, e.g. with `\rule` or `\kern`. */
export const MAX_SIZE_EM = 20;

/** The most macro expansions of one formula: a self-referencing macro stops there with an error. */
export const MAX_EXPAND = 1000;

/** Rendered formulas kept, so a formula in the unfinished tail is typeset once, not on every frame. */
const CACHE_SIZE = 512;

export interface MathToken extends Tokens.Generic {
  type: "mathBlock" | "mathInline";
  raw: string;
  /** The TeX source between the delimiters. */
  text: string;
  /** Displayed (centred, full size) rather than in the line. */
  display: boolean;
  /** A block whose closing delimiter has not come (yet): shown as its source. */
  open: boolean;
}

const SINGLE_LINE_BLOCK = /^ {0,3}(\$\$|\\\[)(.+?)(\$\$|\\\])[ \t]*(?:\n|$)/;
const BLOCK_OPENER = /^ {0,3}(\$\$|\\\[)[ \t]*(?:\n|$)/;

/** A math block at the start of `src`, or undefined. */
export function mathBlockAt(src: string): MathToken | undefined {
  const single = SINGLE_LINE_BLOCK.exec(src);
  const singleText = single?.[2] ?? "";
  if (single !== null && closes(single[1] ?? "", single[3] ?? "") && isOneFormula(singleText, single[1] ?? "")) {
    return { type: "mathBlock", raw: single[0], text: singleText.trim(), display: true, open: false };
  }
  const opener = BLOCK_OPENER.exec(src);
  if (opener === null) return undefined;
  const closing = opener[1] === "$$" ? "$$" : "\\]";
  const lines: string[] = [];
  let position = opener[0].length;
  while (position < src.length) {
    const newline = src.indexOf("\n", position);
    const lineEnd = newline < 0 ? src.length : newline;
    const line = src.slice(position, lineEnd);
    position = newline < 0 ? src.length : newline + 1;
    const trimmed = line.trimEnd();
    if (trimmed.endsWith(closing)) {
      lines.push(trimmed.slice(0, -closing.length));
      return { type: "mathBlock", raw: src.slice(0, position), text: lines.join("\n").trim(), display: true, open: false };
    }
    lines.push(line);
  }
  return { type: "mathBlock", raw: src, text: lines.join("\n"), display: true, open: true };
}

/** Not blank, and without its own delimiter inside (`$$a$$ b$$` is not one formula). */
function isOneFormula(text: string, opening: string): boolean {
  return text.trim() !== "" && !text.includes(opening === "$$" ? "$$" : "\\]");
}

function closes(opening: string, closing: string): boolean {
  return opening === "$$" ? closing === "$$" : closing === "\\]";
}

const INLINE_DISPLAY_DOLLARS = /^\$\$((?:\\[\s\S]|[^\\$])+?)\$\$/;
const INLINE_DISPLAY_BRACKETS = /^\\\[([\s\S]+?)\\\]/;
const INLINE_PARENS = /^\\\(([\s\S]+?)\\\)/;
const INLINE_DOLLAR = /^\$(?![\s$])((?:\\[\s\S]|[^\\$])+)\$/;

/** Inline math at the start of `src`, or undefined. */
export function inlineMathAt(src: string): MathToken | undefined {
  for (const [pattern, display] of [
    [INLINE_DISPLAY_DOLLARS, true],
    [INLINE_DISPLAY_BRACKETS, true],
    [INLINE_PARENS, false],
  ] as const) {
    const match = pattern.exec(src);
    if (match !== null && (match[1] ?? "").trim() !== "") {
      return { type: "mathInline", raw: match[0], text: (match[1] ?? "").trim(), display, open: false };
    }
  }
  const match = INLINE_DOLLAR.exec(src);
  if (match === null) return undefined;
  const text = match[1] ?? "";
  const after = src[match[0].length] ?? "";
  // A code span wins over a formula that would cross it.
  if (/\s$/.test(text) || /\d/.test(after) || text.includes("`")) return undefined;
  return { type: "mathInline", raw: match[0], text, display: false, open: false };
}

/** Where inline math may start in `src` (the inline text rule stops there), or undefined. */
function inlineMathStart(src: string): number | undefined {
  const index = src.search(/\$|\\[([]/);
  return index < 0 ? undefined : index;
}

const cache = new Map<string, string>();

/** KaTeX's HTML for `tex`; a formula KaTeX cannot parse shows its source with the error as its title. */
export function typeset(tex: string, display: boolean): string {
  const key = `${display ? "D" : "I"}${tex}`;
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  let html: string;
  try {
    const typeset = katex.renderToString(tex, {
      displayMode: display,
      output: "html",
      throwOnError: false,
      trust: false,
      strict: "ignore",
      maxSize: MAX_SIZE_EM,
      maxExpand: MAX_EXPAND,
    });
    html = withStylesAside(typeset);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    html = `<span class="katex-error" title="${escapeHtml(message)}">${escapeHtml(tex)}</span>`;
  }
  if (cache.size >= CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(key, html);
  return html;
}

function renderMathToken(token: MathToken): string {
  if (token.type === "mathBlock") {
    if (token.open) return `<pre class="math-source">${escapeHtml(token.raw)}</pre>`;
    return `<div class="math math-display">${typeset(token.text, true)}</div>`;
  }
  const kind = token.display ? "math-display" : "math-inline";
  return `<span class="math ${kind}">${typeset(token.text, token.display)}</span>`;
}

function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** The marked extension: the two tokenizers and their renderer. */
export const mathExtension: MarkedExtension = {
  extensions: [
    {
      name: "mathBlock",
      level: "block",
      tokenizer: (src) => mathBlockAt(src),
      renderer: (token) => renderMathToken(token as MathToken),
    },
    {
      name: "mathInline",
      level: "inline",
      start: inlineMathStart,
      tokenizer: (src) => inlineMathAt(src),
      renderer: (token) => renderMathToken(token as MathToken),
    },
  ],
};
