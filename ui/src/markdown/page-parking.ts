// Keeps a very long answer's DOM at a bounded size. Every finished page of blocks is in the DOM while the
// answer's pages hold at most `liveBlocks` blocks together; beyond that, the pages far from the viewport are
// parked: their blocks leave the DOM (the page keeps its height, so nothing moves) and only their HTML stays, as
// the renderer made it. A parked page that comes near the viewport again (within two screens of the scroller's
// visible box) is rebuilt through the same sanitiser as before.
//
// Why: what the browser does per frame (style, layout, the walk of every layer on each scroll) grows with the
// number of nodes in the document, so a 10 MB answer (some 180,000 blocks) made every frame of the window slow;
// parked pages cost an empty element each. Answers below the budget (a 1 MB answer has some 18,000 blocks) are
// never parked: all their text stays in the page, findable and selectable.
//
// Which pages are near is found by a binary search over the pages' boxes (they are in document order), after
// the layout that follows new blocks and once a frame while the scroller scrolls: a few box reads, whatever the
// number of pages. An IntersectionObserver on every page cost the window time in every frame in proportion to the
// pages: at 10 MB (some 2,700 pages) that was most of each frame. The reads wait for the browser's own layout (a
// ResizeObserver on the root, whose callbacks run after it): read right after new blocks went in, they laid the
// page out then and there, 40 ms a time at 10 MB, three quarters of the window's parking work.
//
// Once the budget was exceeded, a full page that arrives out of reach of the viewport is made parked: its blocks
// never enter the DOM until the user comes near. While a 10 MB answer caught up, most of its pages went through
// the DOM only to be parked a moment later: sanitised, laid out, then dropped. That was two thirds of the catch-up,
// the nodes left for the garbage collector grew the web process past 2 GB, and the window stood still for a
// second once in every such run, with none of the page's script running.

/** Blocks of one answer kept in the DOM at most (pages near the viewport are kept beyond it). */
export const LIVE_BLOCKS = 24_576;

/** How far beyond the scroller's visible box a page counts as near, in heights of that box, each side. */
const NEAR_SCREENS = 2;

/** The height of a parked page never laid out while no page was measured (px; the pages' intrinsic size). */
const PAGE_HEIGHT_ESTIMATE = 600;

export const PARKED_ATTRIBUTE = "data-parked";

interface Page {
  element: HTMLElement;
  /** The page's blocks as the renderer made them, not sanitised. */
  html: string[];
  live: boolean;
}

/** The pages within reach of the viewport: indexes `first` to `last`, both included (empty when last < first). */
interface NearPages {
  first: number;
  last: number;
}

export class PageParking {
  private readonly pages: Page[] = [];
  /** See scrollerElement; undefined until first needed. */
  private scroller: HTMLElement | null | undefined;
  private following = false;
  private frame: number | null = null;
  /** Settles the pages after each layout that changed the root's size, once the budget was exceeded. */
  private afterLayout: ResizeObserver | null = null;
  private liveCount = 0;
  /** Heights of the pages measured when they were parked: their mean is a new parked page's height. */
  private measured = { total: 0, count: 0 };

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
    this.pages.push({ element, html: [], live: true });
  }

  /** Starts following a new page made parked: `html` holds all of its blocks, none of them in the DOM. */
  trackParked(element: HTMLElement, html: readonly string[]): void {
    element.style.height = `${this.pageHeight()}px`;
    element.setAttribute(PARKED_ATTRIBUTE, "");
    this.pages.push({ element, html: [...html], live: false });
  }

  /** Whether new pages out of reach of the viewport are made parked (the budget was exceeded once). */
  sparing(): boolean {
    return this.afterLayout !== null;
  }

  /**
   * Which of the full pages `first` to `last`, about to be added at the end of the answer, come within reach of
   * the viewport, by their estimated heights: when the view is near the answer's end, the first ones (they
   * appear below a view that stays where it is) and the last ones (a view at the very bottom follows the growth,
   * and only they stay near it); none otherwise. A wrong guess is put right after the layout (see settle).
   */
  reachable(first: number, last: number): (index: number) => boolean {
    const view = this.viewBox();
    const height = view.bottom - view.top;
    const room = view.bottom + NEAR_SCREENS * height - this.root.getBoundingClientRect().bottom;
    if (height <= 0 || room < 0) return () => false;
    const pageHeight = this.pageHeight();
    const leading = this.atBottom() ? first : first + Math.ceil(room / pageHeight);
    const trailing = last - Math.ceil(((NEAR_SCREENS + 1) * height) / pageHeight);
    return (index) => index < leading || index > trailing;
  }

  /** The page `index` received these blocks (already in its element). */
  grew(index: number, html: readonly string[]): void {
    const page = this.pages[index];
    if (page === undefined) return;
    page.html.push(...html);
    this.liveCount += html.length;
  }

  /**
   * Parks the pages farthest from the viewport until the live ones fit the budget, once the blocks that came are
   * laid out (at the latest in the next frame's layout).
   */
  enforce(): void {
    if (this.liveCount <= this.liveBlocks || this.afterLayout !== null) return;
    this.follow();
    this.afterLayout = new ResizeObserver(() => this.settle());
    this.afterLayout.observe(this.root);
  }

  /** Forgets every page (the text was replaced). */
  clear(): void {
    this.pages.length = 0;
    this.liveCount = 0;
    this.measured = { total: 0, count: 0 };
    this.afterLayout?.disconnect();
    this.afterLayout = null;
  }

  /** Stops following the viewport; the view is going away. */
  dispose(): void {
    this.clear();
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
    if (this.following) this.scrollTarget().removeEventListener("scroll", this.onScroll);
    this.following = false;
  }

  private readonly onScroll = (): void => {
    if (this.frame !== null) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = null;
      this.settle();
    });
  };

  /** Rebuilds the parked pages that came near, then parks far ones if the budget is exceeded again. */
  private settle(): void {
    const near = this.nearPages();
    if (near === null) return;
    const coming = this.pages.slice(near.first, near.last + 1).filter((page) => !page.live);
    if (coming.length > 0) this.unpark(coming);
    if (this.liveCount > this.liveBlocks) this.parkFarthest(near);
  }

  /** Listens to the scroller from the first time the budget is exceeded (most answers never need it). */
  private follow(): void {
    if (this.following) return;
    this.scrollTarget().addEventListener("scroll", this.onScroll, { passive: true });
    this.following = true;
  }

  /** The element whose scrolling moves the pages, or null when it is the document (looked up once). */
  private scrollerElement(): HTMLElement | null {
    if (this.scroller === undefined) this.scroller = scrollerOf(this.root);
    return this.scroller;
  }

  private scrollTarget(): HTMLElement | Window {
    return this.scrollerElement() ?? window;
  }

  /** A parked page's height before it is laid out: the mean of those measured, or the estimate. */
  private pageHeight(): number {
    const { total, count } = this.measured;
    return count === 0 ? PAGE_HEIGHT_ESTIMATE : total / count;
  }

  /** Whether the view is scrolled to the very bottom (where a view that follows a growing answer stays). */
  private atBottom(): boolean {
    const scroller = this.scrollerElement() ?? document.scrollingElement;
    return scroller !== null && scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight <= 2;
  }

  /** The scroller's visible box (the window's when the document scrolls). */
  private viewBox(): { top: number; bottom: number } {
    return this.scrollerElement()?.getBoundingClientRect() ?? { top: 0, bottom: window.innerHeight };
  }

  /** The pages within NEAR_SCREENS of the visible box, or null when the view is not laid out (hidden). */
  private nearPages(): NearPages | null {
    const view = this.viewBox();
    const height = view.bottom - view.top;
    if (height <= 0 || this.pages.length === 0) return null;
    const low = view.top - NEAR_SCREENS * height;
    const high = view.bottom + NEAR_SCREENS * height;
    // Pages are in document order, so both their tops and their bottoms only grow with the index.
    const first = this.firstIndex((box) => box.bottom > low);
    const last = this.firstIndex((box) => box.top >= high) - 1;
    return { first, last };
  }

  /** The first page whose box satisfies `test` (which, once true, stays true for later pages); or the count. */
  private firstIndex(test: (box: DOMRect) => boolean): number {
    let low = 0;
    let high = this.pages.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const page = this.pages[middle];
      if (page !== undefined && test(page.element.getBoundingClientRect())) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /**
   * Parks live pages outside `near`, farthest first from both ends towards it, until the budget holds; never the
   * last page (it may still be filling).
   */
  private parkFarthest(near: NearPages): void {
    const chosen: Page[] = [];
    let live = this.liveCount;
    const lowEnd = Math.min(near.first, this.pages.length - 1);
    let low = 0;
    let high = this.pages.length - 2;
    while (live > this.liveBlocks && (low < lowEnd || high > near.last)) {
      const fromLow = low < lowEnd && (high <= near.last || near.first - low >= high - near.last);
      const index = fromLow ? low++ : high--;
      const page = this.pages[index];
      if (page === undefined || !page.live) continue;
      chosen.push(page);
      live -= page.html.length;
    }
    // Every height is read before anything is written, so the pass costs one layout, not one per page.
    const heights = chosen.map((page) => page.element.getBoundingClientRect().height);
    for (const height of heights) {
      this.measured.total += height;
      this.measured.count += 1;
    }
    chosen.forEach((page, index) => this.park(page, heights[index] ?? 0));
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
    const scroller = this.scrollerElement();
    const top = scroller?.getBoundingClientRect().top ?? 0;
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
    if (scroller !== null) scroller.scrollTop += change;
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
