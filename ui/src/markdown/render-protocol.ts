// The messages between the window and the render worker (./render.worker). Each Markdown view has a number;
// the worker keeps that view's text and renderer until the view closes.
//
// Flow control: at most MAX_PARTS_IN_FLIGHT parts of a view are on their way to the window or waiting in its
// queue; the worker sends the next only after the window took one (`taken`). What it renders meanwhile is merged
// into the next part, and a part carries at most MAX_PART_BLOCKS new blocks. So the window's queue stays short
// (the next part is there when it is free, without a round trip), and nothing more waits in it.
import type { RenderedPart } from "./markdown-parts";

export type ToRenderWorker =
  /** The view's whole text (the first one, or one that replaced the old). */
  | { view: number; kind: "text"; text: string }
  /** Text appended to the view's text. */
  | { view: number; kind: "append"; text: string }
  /** The window put the view's last part on screen (or staged it): the next may come. */
  | { view: number; kind: "taken" }
  | { view: number; kind: "close" }
  /**
   * Render a sample once and keep nothing: the first answer then finds the renderer's code compiled. The worker
   * answers with the sample's blocks ({@link WarmedUp}), for the window to warm its sanitiser on.
   */
  | { kind: "warm" };

/** Finished blocks are grouped in pages of this many; a full page never changes again. */
export const PAGE_SIZE = 64;

/** The most new blocks one part carries (sanitising them is the window's work for that part). */
export const MAX_PART_BLOCKS = 64;

/** The most parts of one view sent and not taken yet. */
export const MAX_PARTS_IN_FLIGHT = 2;

/** A view's next part. */
export interface ViewPart {
  view: number;
  part: RenderedPart;
}

/** The warm-up sample's blocks as the renderer made them (not sanitised). */
export interface WarmedUp {
  warmedUp: readonly string[];
}

export type FromRenderWorker = ViewPart | WarmedUp;
