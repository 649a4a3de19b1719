// Markdown to sanitised HTML, one top-level block at a time, so a streaming answer is rendered incrementally:
// blocks that can no longer change are rendered once and kept; only the tail is lexed and rendered again.
//
// Safety contract: raw HTML in the Markdown is shown as text; only http, https and mailto links carry an href
// (shown in full beside the link text when the text is not the URL itself; the window opens them in the system
// browser, never in the webview), links of any other scheme are inert text; images are never loaded by the
// page (their alt text is shown, with a "show image" button for a web image, which the host fetches and checks
// only when it is pressed); math is typeset by KaTeX without trust (./math); Mermaid fences stay code here (the window draws
// them once closed, ./diagrams); every block passes through ./sanitize before it reaches the DOM.
import { Marked, type Token, type Tokens } from "marked";

import { blockRuleGuards } from "./block-rule-guards";
import { highlightCode } from "./highlight";
import { inlineText } from "./inline-text-rule";
import { isWebLink } from "./links";
import { mathExtension } from "./math";
import { PAGE_SIZE } from "./render-protocol";
import { sanitizeBlocks } from "./sanitize";

const markdown = new Marked({ gfm: true, breaks: false, async: false });

markdown.use(mathExtension);

markdown.use({
  tokenizer: {
    // Reference definitions would let text further down change how a block above renders, which breaks
    // rendering a finished block once. Without them `[label]: url` is an ordinary paragraph.
    def() {
      return undefined;
    },
    // The setext heading rule is by far the most expensive one in WebKit's regular expression engine, and
    // it is tried on every paragraph and table; it only runs where an underline could make one.
    lheading(src) {
      return mayBeSetextHeading(src) ? false : undefined;
    },
    inlineText,
    ...blockRuleGuards,
  },
  renderer: {
    html(token) {
      return escapeHtml(token.text);
    },
    link(token) {
      const label = this.parser.parseInline(token.tokens);
      const href = token.href.trim();
      if (!isWebLink(href)) return `<a class="md-link md-link-inert">${label}</a>`;
      const url = escapeHtml(href);
      const shown = token.text.trim() === href || `mailto:${token.text.trim()}` === href;
      const beside = shown ? "" : `<span class="md-link-url">${url}</span>`;
      return `<a class="md-link" href="${url}" title="${url}">${label}</a>${beside}`;
    },
    image(token) {
      const alt = `<span class="md-image-alt">[${escapeHtml(token.text)}]</span>`;
      const href = token.href.trim();
      if (!/^https?:\/\/\S+$/i.test(href)) return `<span class="md-image">${alt}</span>`;
      const url = escapeHtml(href);
      return `<span class="md-image" title="${url}">${alt}<button type="button" class="md-image-show"></button></span>`;
    },
    code(token) {
      return renderCode(token);
    },
  },
});

const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/;

/**
 * Whether a setext underline (`===` or `---` alone on its line) follows the first line of `src` before its
 * first blank line: a setext heading needs one, so without it the rule cannot match.
 */
export function mayBeSetextHeading(src: string): boolean {
  let start = src.indexOf("\n") + 1;
  while (start > 0 && start < src.length) {
    const newline = src.indexOf("\n", start);
    const line = src.slice(start, newline < 0 ? src.length : newline).replace(/\r$/, "");
    if (line.trim() === "") return false;
    if (SETEXT_UNDERLINE.test(line)) return true;
    start = newline + 1;
  }
  return false;
}

function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
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
  // A closed Mermaid fence is marked for the window to draw (./diagrams); its text stays the code until then.
  const diagram = closed && safeLanguage === "mermaid";
  const highlighted = closed && !diagram ? highlightCode(token.text, safeLanguage) : null;
  const body = highlighted ?? escapeHtml(token.text);
  const codeClass = highlighted === null ? "" : ` class="hljs language-${safeLanguage}"`;
  const label = safeLanguage === "" ? "" : `<span class="code-lang">${escapeHtml(safeLanguage)}</span>`;
  return (
    `<div class="code-block${closed ? "" : " code-open"}${diagram ? " mermaid-pending" : ""}">` +
    `<div class="code-head">${label}<button type="button" class="code-copy"></button></div>` +
    `<pre><code${codeClass}>${body}</code></pre></div>`
  );
}

/** Lexes Markdown into top-level block tokens (CRLF normalised). */
function lexBlocks(text: string): Token[] {
  return [...markdown.lexer(text)];
}

/**
 * The HTML of top-level blocks, blank space left out, before sanitising: nothing may put it into the DOM
 * without ./sanitize (./markdown-dom does that for the window).
 */
function blocksHtml(tokens: readonly Token[]): string[] {
  return tokens.filter((token) => token.type !== "space").map((token) => markdown.parser([token]));
}

/** One-shot render of a whole text, sanitised: the reference the incremental render must equal. */
export function renderMarkdown(text: string): string {
  return sanitizeBlocks(blocksHtml(lexBlocks(normaliseNewlines(text)))).join("");
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


/**
 * The most text lexed in one go (more only while a single block is longer). In WebKit the lexer's cost grows
 * with the square of its input (measured: 1.2 KB of sections lex at 165 µs a section, 31 KB at 1,370 µs), so a
 * tail is lexed window by window. A window is a prefix of the text to come, like any streamed text, so its
 * finished blocks are final for the same reason.
 */
export const LEX_WINDOW = 2 * 1024;

/** What the renderer made so far. Its HTML is not sanitised yet: ./sanitize comes before the DOM. */
export interface StreamedMarkdown {
  /** Finished blocks' HTML in pages; every page but the last is immutable (same array identity). */
  pages: readonly (readonly string[])[];
  /** The HTML of the blocks that may still change (the unfinished tail); empty while not `complete`. */
  tail: readonly string[];
  /**
   * The whole text is rendered. False when the call's deadline came first: the finished blocks so far are
   * in `pages`, and the next `update` goes on from there.
   */
  complete: boolean;
  /** Counts the times the renderer started over (the text was replaced): earlier pages are void then. */
  epoch: number;
}

/**
 * Incremental renderer for one growing text. `update(text)` expects the previous text plus an appended suffix;
 * anything else (the text was replaced) starts over. Each call lexes only the unfinished tail, in windows of
 * about [`LEX_WINDOW`] characters, so its cost does not grow with the length of the finished part, and it
 * stops rendering finished blocks once `deadline` (a `performance.now()` time) passed.
 */
export class StreamingMarkdown {
  private stableEnd = 0;
  /** The source of the last finished block, to check cheaply that a new text still extends the old. */
  private lastStableSource = "";
  private pages: (readonly string[])[] = [];
  private openPage: string[] = [];
  private epoch = 0;
  /** How long the unfinished tail was at the end of the last update: the next one lexes at least that much at once. */
  private openLength = 0;

  update(text: string, deadline = Number.POSITIVE_INFINITY): StreamedMarkdown {
    if (!this.extendsFinishedPart(text)) this.reset();
    // A trailing lone "\r" may be the first half of "\r\n": it waits for the next update.
    const end = text.endsWith("\r") ? text.length - 1 : text.length;
    // A block that was still open last time (a long paragraph or code block) is lexed whole in one window,
    // not again in windows that double up to its length.
    let window = this.openLength + LEX_WINDOW;
    for (;;) {
      const last = end - this.stableEnd <= window;
      const tailRaw = last ? text.slice(this.stableEnd, end) : windowOf(text, this.stableEnd, window);
      const tail = normaliseNewlines(tailRaw);
      const tokens = lexBlocks(tail);
      const finishedCount = countFinished(tokens, tail.length);
      let rawOffset = 0;
      let normalisedOffset = 0;
      for (const token of tokens.slice(0, finishedCount)) {
        normalisedOffset += token.raw.length;
        const rawEnd = tail === tailRaw ? normalisedOffset : rawIndexOf(tailRaw, normalisedOffset);
        this.lastStableSource = tailRaw.slice(rawOffset, rawEnd);
        this.stableEnd += rawEnd - rawOffset;
        rawOffset = rawEnd;
      }
      for (const html of blocksHtml(tokens.slice(0, finishedCount))) this.pushFinished(html);
      if (last) {
        const tail = blocksHtml(tokens.slice(finishedCount));
        this.openLength = end - this.stableEnd;
        return { pages: this.currentPages(), tail, complete: true, epoch: this.epoch };
      }
      // Nothing finished inside the window: one block is longer than it, so look further.
      window = finishedCount === 0 ? window * 2 : LEX_WINDOW;
      if (finishedCount > 0 && performance.now() >= deadline) {
        return { pages: this.currentPages(), tail: [], complete: false, epoch: this.epoch };
      }
    }
  }

  private currentPages(): (readonly string[])[] {
    return this.openPage.length === 0 ? [...this.pages] : [...this.pages, [...this.openPage]];
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
    this.epoch += 1;
    this.stableEnd = 0;
    this.openLength = 0;
    this.lastStableSource = "";
    this.pages = [];
    this.openPage = [];
  }
}

/**
 * `window` characters of `text` from `start`, cut after their last line break (so "\r\n" is never split),
 * or without a trailing "\r" when they hold none.
 */
function windowOf(text: string, start: number, window: number): string {
  const raw = text.slice(start, start + window);
  const lineEnd = raw.lastIndexOf("\n");
  if (lineEnd >= 0) return raw.slice(0, lineEnd + 1);
  return raw.endsWith("\r") ? raw.slice(0, -1) : raw;
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

/** Concatenated sanitised HTML of a streamed render (what the DOM shows), for tests and the benchmark. */
export function streamedHtml(streamed: StreamedMarkdown): string {
  return sanitizeBlocks([...streamed.pages.flat(), ...streamed.tail]).join("");
}
