// Whether the view is seeking: moving so fast that a row coming into view would be gone again within a frame or
// two (a drag of the scrollbar across a long conversation). Rows mounted then are drawn as placeholders of their
// height (WindowedRows), the rows themselves once the view slows down or rests.
//
// Only sustained speed counts: one jump (a scroll to a message, to the bottom, a conversation opening) is a single
// scroll event, and a scroll after a pause starts from rest. The scrolls the app makes itself to keep the view at
// the bottom are no movement (WindowedRows resets it then).

/** Scroll events further apart than this are not one movement. */
const SAME_MOVEMENT_MS = 100;
/**
 * The speed is the distance moved over this much of the movement: the app's own small corrections between the
 * user's steps (a row measured above the view moves it by the difference, in a scroll event of its own) do not
 * break a movement.
 */
const SPEED_OVER_MS = 50;
/** Seeking starts when a frame (16.7 ms) at this speed moves the view by this share of its height... */
const ENTER_VIEWPORTS_PER_FRAME = 0.75;
/** ...and ends when it moves by less than this share. */
const EXIT_VIEWPORTS_PER_FRAME = 0.375;
const FRAME_MS = 1000 / 60;
/** Consecutive fast scroll events it takes to start seeking. */
const ENTER_AFTER_EVENTS = 2;

export class ScrollSeek {
  /** The movement's scroll events of the last `SPEED_OVER_MS`, oldest first. */
  private recent: { top: number; time: number }[] = [];
  private fastEvents = 0;
  private seeking = false;

  /** Takes one scroll event (the view's `scrollTop`, the event's time, the view's height); true while seeking. */
  observe(top: number, time: number, viewportHeight: number): boolean {
    const previous = this.recent[this.recent.length - 1];
    if (previous === undefined || time - previous.time > SAME_MOVEMENT_MS || viewportHeight <= 0) {
      this.reset();
      this.recent.push({ top, time });
      return false;
    }
    this.recent = this.recent.filter((event) => time - event.time <= SPEED_OVER_MS);
    const from = this.recent[0] ?? previous;
    this.recent.push({ top, time });
    const perFrame = (Math.abs(top - from.top) / Math.max(time - from.time, 1)) * FRAME_MS;
    this.fastEvents = perFrame >= viewportHeight * ENTER_VIEWPORTS_PER_FRAME ? this.fastEvents + 1 : 0;
    this.seeking = this.seeking ? perFrame >= viewportHeight * EXIT_VIEWPORTS_PER_FRAME : this.fastEvents >= ENTER_AFTER_EVENTS;
    return this.seeking;
  }

  /** Whether the last movement was seeking (a view at rest is not: see `reset`). */
  isSeeking(): boolean {
    return this.seeking;
  }

  /** The movement ended: the view rests, or the app moved it (the next event starts a movement from rest). */
  reset(): void {
    this.recent = [];
    this.fastEvents = 0;
    this.seeking = false;
  }
}
