// The render worker: lexes and renders the views' Markdown off the window's thread, in slices, so new text
// that arrives meanwhile is taken in between, and sends each view's parts back, a few in flight at most
// (./render-protocol has the flow control).
import type { RenderedPart } from "./markdown-parts";
import { MarkdownParts } from "./markdown-parts";
import {
  MAX_PART_BLOCKS,
  MAX_PARTS_IN_FLIGHT,
  type FromRenderWorker,
  type ToRenderWorker,
} from "./render-protocol";

/** Rendering time per slice (ms) before the worker looks at its messages again. */
const SLICE_MS = 12;

interface ViewState {
  parts: MarkdownParts;
  text: string;
  /** The length of the text rendered completely so far (-1: not yet). */
  doneLength: number;
  /** What was rendered and not sent yet, merged; null when everything was sent. */
  outbox: Outbox | null;
  /** Parts sent that the window has not taken yet. */
  inFlight: number;
}

/**
 * The unsent part: its blocks are a queue (`blocks` from `first` on), so merging a slice's blocks and sending
 * a chunk cost the blocks moved, not the outbox's length.
 */
interface Outbox {
  latest: RenderedPart;
  blocks: string[];
  first: number;
}

const views = new Map<number, ViewState>();
let scheduled = false;

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<ToRenderWorker>) => void) | null;
  postMessage: (message: FromRenderWorker) => void;
};

/** A bit of every kind of block the renderer has its own code for. */
const WARM_UP_SAMPLE = [
  "## Warm-up",
  "Text with **bold**, `code`, $x^2$ and [a link](https://example.com).",
  "- a list\n  - nested",
  "| a | b |\n|---|---|\n| 1 | 2 |",
  "```rust\nfn main() {}\n```",
  "$$\n\\sum_i x_i\n$$",
  "",
].join("\n\n");

scope.onmessage = ({ data }) => {
  if (data.kind === "warm") {
    const sample = new MarkdownParts().next(WARM_UP_SAMPLE, Number.POSITIVE_INFINITY);
    scope.postMessage({ warmedUp: [...sample.added, ...sample.tail] });
    return;
  }
  const state = views.get(data.view);
  switch (data.kind) {
    case "text":
      if (state === undefined) {
        views.set(data.view, {
          parts: new MarkdownParts(),
          text: data.text,
          doneLength: -1,
          outbox: null,
          inFlight: 0,
        });
      } else {
        state.text = data.text;
        state.doneLength = -1;
      }
      break;
    case "append":
      if (state !== undefined) state.text += data.text;
      break;
    case "taken":
      if (state !== undefined) {
        state.inFlight -= 1;
        send(data.view, state);
      }
      break;
    case "close":
      views.delete(data.view);
      break;
    default:
      break;
  }
  schedule();
};

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setTimeout(pump, 0);
}

/**
 * One slice: renders the views that are behind their text and sends what each may receive, the newest view
 * first: a conversation opens at its end, whose rows mount top to bottom, so the newest view is the answer the
 * user reads first; while an answer is written it is the newest view.
 */
function pump(): void {
  scheduled = false;
  const deadline = performance.now() + SLICE_MS;
  let behind = false;
  for (const [view, state] of [...views].reverse()) {
    if (state.doneLength === state.text.length) continue;
    if (performance.now() >= deadline) {
      behind = true;
      break;
    }
    const part = state.parts.next(state.text, deadline);
    if (part.complete) state.doneLength = part.length;
    else behind = true;
    state.outbox = merge(state.outbox, part);
    send(view, state);
  }
  if (behind) schedule();
}

/** `part` after what the outbox holds: a new epoch voids the older blocks. */
function merge(outbox: Outbox | null, part: RenderedPart): Outbox {
  if (outbox === null || outbox.latest.epoch !== part.epoch) {
    return { latest: part, blocks: [...part.added], first: 0 };
  }
  for (const block of part.added) outbox.blocks.push(block);
  outbox.latest = part;
  return outbox;
}

/**
 * Sends the view's next parts while fewer than MAX_PARTS_IN_FLIGHT wait for the window; at most MAX_PART_BLOCKS
 * new blocks a part.
 */
function send(view: number, state: ViewState): void {
  while (state.inFlight < MAX_PARTS_IN_FLIGHT && state.outbox !== null) sendOne(view, state, state.outbox);
}

function sendOne(view: number, state: ViewState, outbox: Outbox): void {
  const end = Math.min(outbox.blocks.length, outbox.first + MAX_PART_BLOCKS);
  const added = outbox.blocks.slice(outbox.first, end);
  const last = end === outbox.blocks.length;
  const part: RenderedPart = last ? { ...outbox.latest, added } : { ...outbox.latest, added, tail: [], complete: false };
  if (last) {
    state.outbox = null;
  } else {
    outbox.first = end;
    if (outbox.first > 4 * MAX_PART_BLOCKS && outbox.first * 2 > outbox.blocks.length) {
      outbox.blocks = outbox.blocks.slice(outbox.first);
      outbox.first = 0;
    }
  }
  scope.postMessage({ view, part });
  state.inFlight += 1;
}
