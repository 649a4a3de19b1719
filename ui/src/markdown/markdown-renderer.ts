// Renders a view's growing Markdown away from the window's work: in the render worker when the platform has
// workers (one for the window, shared by every view), otherwise on this thread in short slices that yield to
// the event loop between them. Either way the view gets the same parts (./markdown-parts), in order.
import type { MarkdownParts, RenderedPart } from "./markdown-parts";
import type { FromRenderWorker, ToRenderWorker } from "./render-protocol";
import { warmUpWindow } from "./window-warm-up";

/** Rendering time per slice on this thread (ms), when there is no worker. */
const INLINE_SLICE_MS = 8;

export interface MarkdownRenderer {
  /**
   * Renders `text` (usually the previous text plus more); parts come to the view's callback. `growing`: the
   * caller guarantees that `text` is the previous text plus more (a block still streaming), so it is not compared.
   */
  render(text: string, growing?: boolean): void;
  close(): void;
}

/**
 * How long (ms) the window waits between two handovers of new text to the worker, per character of the text: a
 * handover reads the whole text once (a string grown by appending is a rope that the engine flattens when a
 * piece of it is copied out: about 1 ms a megabyte in WebKit), so a long text is handed over less often and that
 * cost stays a small share of the window's time: 10 ms at 1 MB, 100 ms at 10 MB, nothing below 100 KB.
 */
const HANDOVER_MS_PER_CHAR = 1 / 100_000;
const HANDOVER_FREE_CHARS = 100_000;

export function markdownRenderer(onPart: (part: RenderedPart) => void): MarkdownRenderer {
  const worker = renderWorker();
  return worker === null ? inlineRenderer(onPart) : workerRenderer(worker, onPart);
}

/**
 * Starts the window's render worker and has it compile its renderer on a sample, so the first answer after the
 * window opens is not held up by loading it (some 200 ms on a 2-core machine without a GPU); the sample's blocks
 * then warm the window up (./window-warm-up).
 */
export function warmUpRenderer(): void {
  const warm: ToRenderWorker = { kind: "warm" };
  renderWorker()?.worker.postMessage(warm);
}

export interface SharedWorker {
  worker: Worker;
  views: Map<number, (part: RenderedPart) => void>;
  nextView: number;
}

let shared: SharedWorker | null | undefined;

/** The window's render worker, started on first use; null where workers are not available. */
function renderWorker(): SharedWorker | null {
  if (shared !== undefined) return shared;
  try {
    if (typeof Worker === "undefined") {
      shared = null;
      return shared;
    }
    const worker = new Worker(new URL("./render.worker.ts", import.meta.url), { type: "module" });
    const views = new Map<number, (part: RenderedPart) => void>();
    worker.onmessage = ({ data }: MessageEvent<FromRenderWorker>) => {
      if ("warmedUp" in data) {
        warmUpWindow(data.warmedUp);
        return;
      }
      const onPart = views.get(data.view);
      if (onPart === undefined) return;
      onPart(data.part);
      const taken: ToRenderWorker = { view: data.view, kind: "taken" };
      worker.postMessage(taken);
    };
    shared = { worker, views, nextView: 1 };
  } catch {
    shared = null;
  }
  return shared;
}

/**
 * New text goes to the worker at most once per HANDOVER_MS_PER_CHAR wait: what arrives meanwhile is merged into
 * the next handover instead of posted as one message a frame, and the window reads the growing text once per
 * handover, not once a frame. The worker is never kept waiting for the window: it renders towards the latest text
 * it was given while the window puts earlier parts on screen.
 */
export function workerRenderer(shared: SharedWorker, onPart: (part: RenderedPart) => void): MarkdownRenderer {
  const view = shared.nextView;
  shared.nextView += 1;
  /** The text the worker has, and whether every text rendered since was declared an extension of it. */
  let given: string | null = null;
  let grewFromGiven = true;
  let latest: string | null = null;
  let lastHandover = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const post = (message: ToRenderWorker) => shared.worker.postMessage(message);

  const handOver = () => {
    timer = null;
    const text = latest;
    if (text === null || text === given) return;
    if (given !== null && text.length >= given.length && (grewFromGiven || text.startsWith(given))) {
      if (text.length === given.length) {
        given = text;
        return;
      }
      post({ view, kind: "append", text: text.slice(given.length) });
    } else {
      post({ view, kind: "text", text });
    }
    given = text;
    grewFromGiven = true;
    lastHandover = performance.now();
  };

  shared.views.set(view, onPart);
  return {
    render(text, growing = false) {
      latest = text;
      if (!growing) grewFromGiven = false;
      if (timer !== null && grewFromGiven) return;
      if (timer !== null) clearTimeout(timer);
      // A replaced text makes the worker start over: it goes at once.
      const wait =
        text.length < HANDOVER_FREE_CHARS || !grewFromGiven
          ? 0
          : lastHandover + text.length * HANDOVER_MS_PER_CHAR - performance.now();
      if (wait <= 0) handOver();
      else timer = setTimeout(handOver, wait);
    },
    close() {
      if (timer !== null) clearTimeout(timer);
      shared.views.delete(view);
      post({ view, kind: "close" });
    },
  };
}

/**
 * The renderer is loaded on first use: the window's bundle does not carry the Markdown lexer, the highlighter
 * and KaTeX, which only the worker needs where there is one.
 */
function inlineRenderer(onPart: (part: RenderedPart) => void): MarkdownRenderer {
  let parts: MarkdownParts | null = null;
  let latest: string | null = null;
  let closed = false;
  let cancel: (() => void) | null = null;
  const slice = () => {
    cancel = null;
    if (parts === null || latest === null) return;
    const part = parts.next(latest, performance.now() + INLINE_SLICE_MS);
    onPart(part);
    if (!part.complete) cancel = nextTask(slice);
  };
  void import("./markdown-parts").then(({ MarkdownParts: Parts }) => {
    if (closed) return;
    parts = new Parts();
    if (latest !== null && cancel === null) cancel = nextTask(slice);
  });
  return {
    render(text) {
      latest = text;
      if (cancel === null && parts !== null) cancel = nextTask(slice);
    },
    close() {
      closed = true;
      cancel?.();
      cancel = null;
    },
  };
}

/** Runs `task` as a task of its own as soon as the event loop is free (no timer clamping); returns a cancel. */
function nextTask(task: () => void): () => void {
  const channel = new MessageChannel();
  let cancelled = false;
  channel.port1.onmessage = () => {
    channel.port1.close();
    if (!cancelled) task();
  };
  channel.port2.postMessage(null);
  return () => {
    cancelled = true;
    channel.port1.close();
  };
}
