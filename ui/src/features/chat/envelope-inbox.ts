// Envelopes that arrive between two frames are applied together: one reducer pass and one render per frame,
// however many envelopes a fast answer brings. A hidden window runs no animation frames, so a timer flushes
// too; whichever comes first delivers, in arrival order.
import type { Envelope } from "../../ipc/wire";

/** The longest an envelope waits when no animation frame comes (a hidden or minimised window). */
const FALLBACK_FLUSH_MS = 50;

export function envelopeInbox(deliver: (envelopes: Envelope[]) => void): (envelope: Envelope) => void {
  let held: Envelope[] = [];
  let frame: number | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    if (frame !== null) cancelAnimationFrame(frame);
    if (timer !== null) clearTimeout(timer);
    frame = null;
    timer = null;
    const envelopes = held;
    held = [];
    if (envelopes.length > 0) deliver(envelopes);
  };
  return (envelope) => {
    held.push(envelope);
    if (frame === null) frame = requestAnimationFrame(flush);
    if (timer === null) timer = setTimeout(flush, FALLBACK_FLUSH_MS);
  };
}
