// Markdown to sanitised HTML, one top-level block at a time, so a streaming answer is rendered incrementally:
// blocks that can no longer change are rendered once and kept; only the tail is lexed and rendered again.
//
// Safety contract: raw HTML in the Markdown is shown as text, links carry no href (the target is only shown
// as a tooltip, `javascript:` and other non-web schemes not even that), images are never loaded (their alt
// text is shown), and every block passes through ./sanitize before it reaches the DOM.
import { Marked, type Token, type Tokens } from "marked";

import { highlightCode } from "./highlight";
import { sanitizeHtml } from "./sanitize";

const markdown = new Marked({ gfm: true, breaks: false, async: false });

markdown.use({
  tokenizer: {
    // Reference definitions would let text further down change how a block above renders, which breaks
    // rendering a finished block once. Without them `[label]: url` is an ordinary paragraph.
    def() {
      return undefined;
    },
  },
  renderer: {
    html(token) {
      return escapeHtml(token.text);
    },
    link(token) {
      const label = this.parser.parseInline(token.tokens);
      const title = isWebLink(token.href) ? ` title="${escapeHtml(token.href)}"` : "";
      return `<a class="md-link"${title}>${label}</a>`;
    },
    image(token) {
      return `<span class="md-image">[${escapeHtml(token.text)}]</span>`;
    },
    code(token) {
      return renderCode(token);
    },
  },
});

function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

function isWebLink(href: string): boolean {
  return /^(https?:|mailto:)/i.test(href.trim());
}

const OPENING_FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Whether a fenced code token has its closing fence. `complete` additionally asks for the newline after it,
 * since "```" followed by more text on the same line would not be a closing fence.
 */
export function fenceState(token: Tokens.Code): "indented" | "open" | "closed" | "complete" {
  const opening = OPENING_FENCE.exec(token.raw);
  if (token.codeBlockStyle === "indented" || opening === null) return "indented";
  const marker = opening[1] ?? "```";
  const fenceChar = marker[0] === "~" ? "~" : "`";
  const lines = token.raw.split("\n");
  const endsWithNewline = token.raw.endsWith("\n");
  // Trailing empty strings after the last newline are not lines.
  while (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  const closing = new RegExp(`^ {0,3}\\${fenceChar}{${marker.length},}[ \\t]*$`);
  const lastLine = lines[lines.length - 1] ?? "";
  if (lines.length < 2 || !closing.test(lastLine)) return "open";
  return endsWithNewline ? "complete" : "closed";
}

function renderCode(token: Tokens.Code): string {
  const language = (token.lang ?? "").trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  const safeLanguage = /^[\w+#.-]{1,32}$/.test(language) ? language : "";
  const closed = fenceState(token) !== "open";
  // Highlighting waits for the closing fence: a half-written block would re-highlight on every frame.
  const highlighted = closed ? highlightCode(token.text, safeLanguage) : null;
  const body = highlighted ?? escapeHtml(token.text);
  const codeClass = highlighted === null ? "" : ` class="hljs language-${safeLanguage}"`;
  const label = safeLanguage === "" ? "" : `<span class="code-lang">${escapeHtml(safeLanguage)}</span>`;
  return (
    `<div class="code-block${closed ? "" : " code-open"}">` +
    `<div class="code-head">${label}<button type="button" class="code-copy"></button></div>` +
    `<pre><code${codeClass}>${body}</code></pre></div>`
  );
}

/** Lexes Markdown into top-level block tokens (CRLF normalised). */
function lexBlocks(text: string): Token[] {
  return [...markdown.lexer(text)];
}

/** The sanitised HTML of one top-level block ("" for blank space). */
export function renderBlock(token: Token): string {
  if (token.type === "space") return "";
  return sanitizeHtml(markdown.parser([token]));
}

/** One-shot render of a whole text: the reference the incremental render must equal. */
export function renderMarkdown(text: string): string {
  return lexBlocks(normaliseNewlines(text)).map(renderBlock).join("");
}

function normaliseNewlines(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

/** The index in `raw` where its normalised form ("\r\n" and "\r" as "\n") reaches `normalisedLength`. */
function rawIndexOf(raw: string, normalisedLength: number): number {
  let rawIndex = 0;
  for (let count = 0; count < normalisedLength && rawIndex < raw.length; count += 1) {
    rawIndex += raw[rawIndex] === "\r" && raw[rawIndex + 1] === "\n" ? 2 : 1;
  }
  return rawIndex;
}

/** Finished blocks are grouped in pages of this many; a full page never changes again. */
export const PAGE_SIZE = 64;

export interface StreamedMarkdown {
  /** Finished blocks' HTML in pages; every page but the last is immutable (same array identity). */
  pages: readonly (readonly string[])[];
  /** The HTML of the blocks that may still change (the unfinished tail). */
  tail: readonly string[];
}

/**
 * Incremental renderer for one growing text. `update(text)` expects the previous text plus an appended suffix;
 * anything else (the text was replaced) starts over. Each call lexes only the unfinished tail, so its cost
 * does not grow with the length of the finished part.
 */
export class StreamingMarkdown {
  private stableEnd = 0;
  /** The source of the last finished block, to check cheaply that a new text still extends the old. */
  private lastStableSource = "";
  private pages: (readonly string[])[] = [];
  private openPage: string[] = [];

  update(text: string): StreamedMarkdown {
    if (!this.extendsFinishedPart(text)) this.reset();
    // Only the tail is looked at, so nothing here grows with the finished part. A trailing lone "\r" may be
    // the first half of "\r\n": it waits for the next update.
    const tailRaw = text.endsWith("\r") ? text.slice(this.stableEnd, -1) : text.slice(this.stableEnd);
    const tail = normaliseNewlines(tailRaw);
    const tokens = lexBlocks(tail);
    const finishedCount = countFinished(tokens, tail.length);
    let rawOffset = 0;
    let normalisedOffset = 0;
    for (let index = 0; index < finishedCount; index += 1) {
      const token = tokens[index];
      if (token === undefined) break;
      normalisedOffset += token.raw.length;
      const rawEnd = tail === tailRaw ? normalisedOffset : rawIndexOf(tailRaw, normalisedOffset);
      this.lastStableSource = tailRaw.slice(rawOffset, rawEnd);
      this.stableEnd += rawEnd - rawOffset;
      rawOffset = rawEnd;
      const html = renderBlock(token);
      if (html !== "") this.pushFinished(html);
    }
    const rest = tokens.slice(finishedCount).map(renderBlock).filter((html) => html !== "");
    const pages = this.openPage.length === 0 ? [...this.pages] : [...this.pages, [...this.openPage]];
    return { pages, tail: rest };
  }

  private extendsFinishedPart(text: string): boolean {
    if (text.length < this.stableEnd) return false;
    const start = this.stableEnd - this.lastStableSource.length;
    return text.startsWith(this.lastStableSource, start);
  }

  private pushFinished(html: string): void {
    this.openPage.push(html);
    if (this.openPage.length === PAGE_SIZE) {
      this.pages.push(this.openPage);
      this.openPage = [];
    }
  }

  private reset(): void {
    this.stableEnd = 0;
    this.lastStableSource = "";
    this.pages = [];
    this.openPage = [];
  }
}

/**
 * How many leading tokens can no longer change as text is appended: every token before the last one that
 * holds content (the text after them already decided where they end), plus that last one when it is a fenced
 * code block whose closing fence line is complete. The token sources must add up to the lexed text, otherwise
 * nothing is treated as finished.
 */
function countFinished(tokens: readonly Token[], sourceLength: number): number {
  const lexedLength = tokens.reduce((sum, token) => sum + token.raw.length, 0);
  if (lexedLength !== sourceLength) return 0;
  let lastContent = -1;
  for (let index = tokens.length - 1; index >= 0; index -= 1) {
    if (tokens[index]?.type !== "space") {
      lastContent = index;
      break;
    }
  }
  if (lastContent < 0) return 0;
  const last = tokens[lastContent];
  if (last !== undefined && last.type === "code" && fenceState(last as Tokens.Code) === "complete") {
    return lastContent + 1;
  }
  return lastContent;
}

/** Concatenated HTML of a streamed render (what the DOM shows), for tests and the benchmark. */
export function streamedHtml(streamed: StreamedMarkdown): string {
  return streamed.pages.flat().join("") + streamed.tail.join("");
}
