// What the window is handed from the host, at most one delivery per MIN_INTERVAL_MS. An envelope that comes when
// the last delivery is at least that long ago is delivered at the end of the task it came in (a slow stream
// shows each delta at once); the envelopes that come sooner are held and delivered together at the next animation
// frame or when the interval is over, whichever comes first: one reducer pass and one render per delivery,
// however many envelopes a fast answer brings. The timer matters where frames are slower than the interval (a
// machine drawing without a GPU) and where none come (a hidden or minimised window): what is held never waits
// longer than the interval for either.
import type { Envelope } from "../../ipc/wire";

/** The shortest time between two deliveries (ms): a frame at 60 Hz. */
export const MIN_INTERVAL_MS = 16;

export function envelopeInbox(deliver: (envelopes: Envelope[]) => void): (envelope: Envelope) => void {
  let held: Envelope[] = [];
  let lastDelivery = Number.NEGATIVE_INFINITY;
  /** A delivery is on the way (at the end of the task, or at a frame or a timer). */
  let scheduled = false;
  let frame: number | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    if (frame !== null) cancelAnimationFrame(frame);
    if (timer !== null) clearTimeout(timer);
    frame = null;
    timer = null;
    scheduled = false;
    lastDelivery = performance.now();
    const envelopes = held;
    held = [];
    if (envelopes.length > 0) deliver(envelopes);
  };
  return (envelope) => {
    held.push(envelope);
    if (scheduled) return;
    scheduled = true;
    const wait = lastDelivery + MIN_INTERVAL_MS - performance.now();
    if (wait <= 0) {
      queueMicrotask(flush);
      return;
    }
    frame = requestAnimationFrame(flush);
    timer = setTimeout(flush, wait);
  };
}
