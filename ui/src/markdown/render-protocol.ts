// The messages between the window and the render worker (./render.worker). Each Markdown view has a number;
// the worker keeps that view's text and renderer until the view closes.
//
// Flow control: the worker sends a view at most one part at a time and the next only after the window took
// the previous one (`taken`); what it renders meanwhile is merged into the next part, and a part carries at
// most MAX_PART_BLOCKS new blocks. So the window's queue never holds more than one part a view, and nothing
// the window cannot show yet waits in it.
import type { RenderedPart } from "./markdown-parts";

export type ToRenderWorker =
  /** The view's whole text (the first one, or one that replaced the old). */
  | { view: number; kind: "text"; text: string }
  /** Text appended to the view's text. */
  | { view: number; kind: "append"; text: string }
  /** The window put the view's last part on screen (or staged it): the next may come. */
  | { view: number; kind: "taken" }
  | { view: number; kind: "close" };

/** The most new blocks one part carries (sanitising them is the window's work for that part). */
export const MAX_PART_BLOCKS = 96;

export interface FromRenderWorker {
  view: number;
  part: RenderedPart;
}
