// A growing text's rendering as a sequence of parts: each part carries the blocks finished since the previous
// one and the current tail, so it can cross a thread boundary (the render worker) without resending what the
// other side already has. The HTML is not sanitised yet: ./markdown-dom does that before the DOM.
import { StreamingMarkdown } from "./render";
import { PAGE_SIZE } from "./render-protocol";

export interface RenderedPart {
  /** Changes when the renderer started over (the text was replaced): earlier blocks are void then. */
  epoch: number;
  /** Blocks finished since the previous part of the same epoch, in order. */
  added: readonly string[];
  /** The unfinished tail's blocks; empty while not `complete`. */
  tail: readonly string[];
  /** The text of `length` characters is rendered completely. */
  complete: boolean;
  /** The length of the text this part was rendered from. */
  length: number;
}

export class MarkdownParts {
  private readonly renderer = new StreamingMarkdown();
  private epoch = -1;
  private sent = 0;

  /** Renders towards `text` until `deadline` (a `performance.now()` time) and returns what is new. */
  next(text: string, deadline: number): RenderedPart {
    const step = this.renderer.update(text, deadline);
    if (step.epoch !== this.epoch) {
      this.epoch = step.epoch;
      this.sent = 0;
    }
    const added: string[] = [];
    for (let page = Math.floor(this.sent / PAGE_SIZE); page < step.pages.length; page += 1) {
      const blocks = step.pages[page] ?? [];
      added.push(...blocks.slice(this.sent + added.length - page * PAGE_SIZE));
    }
    this.sent += added.length;
    return { epoch: step.epoch, added, tail: step.tail, complete: step.complete, length: text.length };
  }
}
