// What the window is handed from the host, at most one delivery a frame. An envelope that comes while the inbox
// is idle is delivered at the end of the task it came in (so a slow stream shows each delta at once, without
// waiting for a frame); the envelopes that come after it wait for the next animation frame and are applied
// together: one reducer pass and one render per frame, however many envelopes a fast answer brings. The inbox
// is idle again after a frame that had nothing to deliver. A hidden window runs no animation frames, so a timer
// stands in for the frame there.
import type { Envelope } from "../../ipc/wire";

/** The longest an envelope waits when no animation frame comes (a hidden or minimised window). */
const FALLBACK_FLUSH_MS = 50;

export function envelopeInbox(deliver: (envelopes: Envelope[]) => void): (envelope: Envelope) => void {
  let held: Envelope[] = [];
  /** A delivery at the end of the current task is queued. */
  let queued = false;
  let frame: number | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  /** Delivers what is held; false when nothing was. */
  const take = () => {
    const envelopes = held;
    held = [];
    if (envelopes.length > 0) deliver(envelopes);
    return envelopes.length > 0;
  };
  const awaitFrame = () => {
    frame = requestAnimationFrame(onFrame);
    timer = setTimeout(onFrame, FALLBACK_FLUSH_MS);
  };
  function onFrame() {
    if (frame !== null) cancelAnimationFrame(frame);
    if (timer !== null) clearTimeout(timer);
    frame = null;
    timer = null;
    // A frame that delivered keeps the inbox on frames; one with nothing to deliver leaves it idle.
    if (take()) awaitFrame();
  }
  return (envelope) => {
    held.push(envelope);
    if (queued || frame !== null) return;
    queued = true;
    queueMicrotask(() => {
      queued = false;
      awaitFrame();
      take();
    });
  };
}
