// Keeps an element in step with a growing Markdown text, on the DOM directly: finished blocks are appended
// once, in pages of PAGE_SIZE (a page's element lets the browser skip its layout and paint while it is off
// screen, and ./page-parking takes the blocks of far pages out of a very long answer's DOM), and only the
// unfinished tail is replaced. A long answer's thousands of blocks never pass through
// React's reconciliation, and each block's HTML is parsed once, by the sanitiser.
//
// Two steps, so a caller can spread the work: `stage` sanitises what the renderer finished into detached
// elements, `commit` puts everything staged into the DOM at once. Once the answer is long enough for pages to be
// parked, `stage` only keeps the blocks' HTML: `commit` sanitises the pages that come within reach of the
// viewport and makes the others parked (see ./page-parking).
//
// The one place rendered Markdown enters the DOM: every block passes through ./sanitize here; the inline styles
// it kept (KaTeX's) are applied through the CSSOM (./inline-style), and closed Mermaid fences are handed to
// ./diagrams.
import { drawDiagrams } from "./diagrams";
import { STYLE_ATTRIBUTE, applyInlineStyles } from "./inline-style";
import type { RenderedPart } from "./markdown-parts";
import { PageParking } from "./page-parking";
import { PAGE_SIZE } from "./render-protocol";
import { sanitizeBlockElements } from "./sanitize";

export class MarkdownDom {
  private readonly pageElements: HTMLElement[] = [];
  /** Finished blocks in the DOM. */
  private shownBlocks = 0;
  /** The sanitised elements of the first staged blocks (of all of them, until pages are made parked). */
  private staged: Element[] = [];
  private stagedHtml: string[] = [];
  /** The tail's HTML as last staged, and its elements when they are not in the DOM yet. */
  private tailHtml: readonly string[] = [];
  private stagedTail: Element[] | null = null;
  private tailElements: Element[] = [];
  private epoch = -1;

  private readonly parking: PageParking;

  /** `liveBlocks`: see ./page-parking (tests give a small one). */
  constructor(
    private readonly root: HTMLElement,
    liveBlocks?: number,
  ) {
    this.parking = new PageParking(blockElements, root, liveBlocks);
  }

  /** Sanitises the part's new blocks and its tail for the next commit. */
  stage(part: RenderedPart): void {
    if (part.epoch !== this.epoch) this.clear(part.epoch);
    if (part.added.length > 0) {
      if (!this.parking.sparing()) this.staged.push(...blockElements(part.added));
      this.stagedHtml.push(...part.added);
    }
    if (!sameBlocks(part.tail, this.tailHtml)) {
      this.tailHtml = part.tail;
      this.stagedTail = blockElements(part.tail);
    }
  }

  /** Puts everything staged into the DOM. */
  commit(): void {
    const count = this.stagedHtml.length;
    const firstNew = Math.ceil(this.shownBlocks / PAGE_SIZE);
    const lastFull = Math.floor((this.shownBlocks + count) / PAGE_SIZE) - 1;
    // The viewport is read only when this commit completes pages that may be made parked.
    const reachable =
      this.parking.sparing() && firstNew <= lastFull ? this.parking.reachable(firstNew, lastFull) : () => true;
    let next = 0;
    while (next < count) {
      const page = Math.floor(this.shownBlocks / PAGE_SIZE);
      const room = (page + 1) * PAGE_SIZE - this.shownBlocks;
      const html = this.stagedHtml.slice(next, next + room);
      if (page >= firstNew && page <= lastFull && !reachable(page)) {
        this.parkedPage(page, html);
      } else {
        const made = this.staged.slice(next, next + room);
        const batch = made.length === html.length ? made : [...made, ...blockElements(html.slice(made.length))];
        this.page(page).append(...batch);
        this.parking.grew(page, html);
      }
      this.shownBlocks += html.length;
      next += html.length;
    }
    this.staged = [];
    this.stagedHtml = [];
    if (this.stagedTail !== null) {
      for (const element of this.tailElements) element.remove();
      this.root.append(...this.stagedTail);
      this.tailElements = this.stagedTail;
      this.stagedTail = null;
    }
    this.parking.enforce();
  }

  /** Stops following the viewport; the view is going away. */
  dispose(): void {
    this.parking.dispose();
  }

  /** The element of page `index`, created after the pages before it (so before the tail). */
  private page(index: number): HTMLElement {
    const existing = this.pageElements[index];
    if (existing !== undefined) return existing;
    const element = this.newPage(index);
    this.parking.track(element);
    return element;
  }

  /** Page `index`, full with these blocks, made parked: they do not enter the DOM. */
  private parkedPage(index: number, html: readonly string[]): void {
    this.parking.trackParked(this.newPage(index), html);
  }

  private newPage(index: number): HTMLElement {
    const element = document.createElement("div");
    element.className = "md-page";
    const previous = this.pageElements[index - 1];
    this.root.insertBefore(element, previous === undefined ? this.root.firstChild : previous.nextSibling);
    this.pageElements[index] = element;
    return element;
  }

  private clear(epoch: number): void {
    this.root.replaceChildren();
    this.pageElements.length = 0;
    this.shownBlocks = 0;
    this.staged = [];
    this.stagedHtml = [];
    this.parking.clear();
    this.tailHtml = [];
    this.stagedTail = null;
    this.tailElements = [];
    this.epoch = epoch;
  }
}

/** The blocks' sanitised elements, with their inline styles applied and their diagrams on the way. */
function blockElements(blocks: readonly string[]): Element[] {
  const elements = sanitizeBlockElements(blocks);
  blocks.forEach((html, index) => {
    const element = elements[index];
    if (element === undefined) return;
    if (html.includes(STYLE_ATTRIBUTE)) applyInlineStyles(element);
    if (html.includes("mermaid-pending")) drawDiagrams(element);
  });
  return elements;
}

function sameBlocks(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((html, index) => html === b[index]);
}
