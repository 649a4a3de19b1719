// Renders a view's growing Markdown away from the window's work: in the render worker when the platform has
// workers (one for the window, shared by every view), otherwise on this thread in short slices that yield to
// the event loop between them. Either way the view gets the same parts (./markdown-parts), in order.
import { MarkdownParts, type RenderedPart } from "./markdown-parts";
import type { FromRenderWorker, ToRenderWorker } from "./render-protocol";

/** Rendering time per slice on this thread (ms), when there is no worker. */
const INLINE_SLICE_MS = 8;

export interface MarkdownRenderer {
  /** Renders `text` (usually the previous text plus more); parts come to the view's callback. */
  render(text: string): void;
  close(): void;
}

export function markdownRenderer(onPart: (part: RenderedPart) => void): MarkdownRenderer {
  const worker = renderWorker();
  return worker === null ? inlineRenderer(onPart) : workerRenderer(worker, onPart);
}

interface SharedWorker {
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

function workerRenderer(shared: SharedWorker, onPart: (part: RenderedPart) => void): MarkdownRenderer {
  const view = shared.nextView;
  shared.nextView += 1;
  shared.views.set(view, onPart);
  let sent: string | null = null;
  const post = (message: ToRenderWorker) => shared.worker.postMessage(message);
  return {
    render(text) {
      if (sent !== null && text.length >= sent.length && text.startsWith(sent)) {
        if (text.length > sent.length) post({ view, kind: "append", text: text.slice(sent.length) });
      } else {
        post({ view, kind: "text", text });
      }
      sent = text;
    },
    close() {
      shared.views.delete(view);
      post({ view, kind: "close" });
    },
  };
}

function inlineRenderer(onPart: (part: RenderedPart) => void): MarkdownRenderer {
  const parts = new MarkdownParts();
  let latest = "";
  let cancel: (() => void) | null = null;
  const slice = () => {
    cancel = null;
    const part = parts.next(latest, performance.now() + INLINE_SLICE_MS);
    onPart(part);
    if (!part.complete) cancel = nextTask(slice);
  };
  return {
    render(text) {
      latest = text;
      if (cancel === null) cancel = nextTask(slice);
    },
    close() {
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
