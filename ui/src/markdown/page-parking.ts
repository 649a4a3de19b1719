// Keeps a very long answer's DOM at a bounded size. Every finished page of blocks is in the DOM while the
// answer's pages hold at most `liveBlocks` blocks together; beyond that, the pages far from the viewport are
// parked: their blocks leave the DOM (the page keeps its height, so nothing moves) and only their HTML stays, as
// the renderer made it. A parked page that comes near the viewport again (within a screen or two of it, seen by
// an IntersectionObserver on the transcript's scroller) is rebuilt through the same sanitiser as before.
//
// Why: what the browser does per frame (style, layout, the walk of every layer on each scroll) grows with the
// number of nodes in the document, so a 10 MB answer (some 180,000 blocks) made every frame of the window slow;
// parked pages cost an empty element each. Answers below the budget (a 1 MB answer has some 18,000 blocks) are
// never parked: all their text stays in the page, findable and selectable.
//
// Where there is no IntersectionObserver nothing is ever parked.

/** Blocks of one answer kept in the DOM at most (pages near the viewport are kept beyond it). */
export const LIVE_BLOCKS = 24_576;

/** How far beyond the scroller's visible box a page counts as near (a fraction of its height, each side). */
const NEAR_MARGIN = "200% 0px";

export const PARKED_ATTRIBUTE = "data-parked";

interface Page {
  element: HTMLElement;
  /** The page's blocks as the renderer made them, not sanitised. */
  html: string[];
  live: boolean;
  near: boolean;
}

export class PageParking {
  private readonly pages: Page[] = [];
  private readonly byElement = new Map<Element, Page>();
  /** Made when the budget is first exceeded (most answers never need one); null where there is none. */
  private observer: IntersectionObserver | null | undefined;
  private scroller: HTMLElement | null = null;
  /** The observer reported where the pages are: until then none is known to be far. */
  private located = false;
  private liveCount = 0;

  /**
   * `rebuild` turns a parked page's HTML back into sanitised elements; `root` is the element that holds the
   * pages (the viewport that counts is its scroller's).
   */
  constructor(
    private readonly rebuild: (html: readonly string[]) => Element[],
    private readonly root: HTMLElement,
    private readonly liveBlocks: number = LIVE_BLOCKS,
  ) {}

  /** Starts following a new page element (pages are added in order). */
  track(element: HTMLElement): void {
    const page: Page = { element, html: [], live: true, near: false };
    this.pages.push(page);
    this.byElement.set(element, page);
    this.observer?.observe(element);
  }

  /** The page `index` received these blocks (already in its element). */
  grew(index: number, html: readonly string[]): void {
    const page = this.pages[index];
    if (page === undefined) return;
    page.html.push(...html);
    this.liveCount += html.length;
  }

  /** Parks the pages farthest from the viewport until the live ones fit the budget. */
  enforce(): void {
    if (this.liveCount <= this.liveBlocks || this.watch() === null || !this.located) return;
    const nearest = this.pages.findIndex((page) => page.near);
    const anchor = nearest === -1 ? this.pages.length - 1 : nearest;
    // Farthest first, from both ends towards the nearest page; never the last page (it may still be filling)
    // nor a near one.
    const chosen: Page[] = [];
    let live = this.liveCount;
    let low = 0;
    let high = this.pages.length - 2;
    while (live > this.liveBlocks && low <= high) {
      const index = anchor - low >= high - anchor ? low++ : high--;
      const page = this.pages[index];
      if (page === undefined || !page.live || page.near) continue;
      chosen.push(page);
      live -= page.html.length;
    }
    // Every height is read before anything is written, so the pass costs one layout, not one per page.
    const heights = chosen.map((page) => page.element.getBoundingClientRect().height);
    chosen.forEach((page, index) => this.park(page, heights[index] ?? 0));
  }

  /** Forgets every page (the text was replaced). */
  clear(): void {
    this.observer?.disconnect();
    this.pages.length = 0;
    this.byElement.clear();
    this.located = false;
    this.liveCount = 0;
  }

  /** Stops observing; the view is going away. */
  dispose(): void {
    this.clear();
    this.observer = null;
  }

  /** The observer, made on first use and given every page so far. */
  private watch(): IntersectionObserver | null {
    if (this.observer !== undefined) return this.observer;
    if (typeof IntersectionObserver === "undefined") {
      this.observer = null;
      return null;
    }
    this.scroller = scrollerOf(this.root);
    const observer = new IntersectionObserver((entries) => this.onIntersections(entries), {
      root: this.scroller,
      rootMargin: NEAR_MARGIN,
    });
    for (const page of this.pages) observer.observe(page.element);
    this.observer = observer;
    return observer;
  }

  private onIntersections(entries: readonly IntersectionObserverEntry[]): void {
    const coming: Page[] = [];
    for (const entry of entries) {
      const page = this.byElement.get(entry.target);
      if (page === undefined) continue;
      page.near = entry.isIntersecting;
      if (page.near && !page.live) coming.push(page);
    }
    if (coming.length > 0) this.unpark(coming);
    this.located = true;
    this.enforce();
  }

  private park(page: Page, height: number): void {
    page.element.style.height = `${height}px`;
    page.element.replaceChildren();
    page.element.setAttribute(PARKED_ATTRIBUTE, "");
    page.live = false;
    this.liveCount -= page.html.length;
  }

  /**
   * Rebuilds these pages. Pages above the visible part change their height without moving what is shown: the
   * scroller moves by what they grew. Reads and writes are batched (one layout before, one after).
   */
  private unpark(pages: readonly Page[]): void {
    const top = this.scroller?.getBoundingClientRect().top ?? 0;
    const before = pages.map((page) => {
      const box = page.element.getBoundingClientRect();
      return { height: box.height, above: box.top < top };
    });
    for (const page of pages) {
      page.element.append(...this.rebuild(page.html));
      page.element.style.removeProperty("height");
      page.element.removeAttribute(PARKED_ATTRIBUTE);
      page.live = true;
      this.liveCount += page.html.length;
    }
    let change = 0;
    pages.forEach((page, index) => {
      const was = before[index];
      if (was?.above === true) change += page.element.getBoundingClientRect().height - was.height;
    });
    if (change === 0) return;
    if (this.scroller !== null) this.scroller.scrollTop += change;
    else window.scrollBy(0, change);
  }
}

/** The nearest ancestor of `element` that scrolls vertically, or null when it is the document. */
function scrollerOf(element: HTMLElement): HTMLElement | null {
  for (let parent = element.parentElement; parent !== null; parent = parent.parentElement) {
    const overflow = getComputedStyle(parent).overflowY;
    if (overflow === "auto" || overflow === "scroll") return parent;
  }
  return null;
}
