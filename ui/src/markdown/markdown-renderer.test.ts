import { describe, expect, it, vi } from "vitest";

import type { RenderedPart } from "./markdown-parts";
import { workerRenderer, type SharedWorker } from "./markdown-renderer";
import type { ToRenderWorker } from "./render-protocol";

/** A worker that records what the window handed over; the test plays its parts back. */
function recordingWorker(): { shared: SharedWorker; sent: ToRenderWorker[] } {
  const sent: ToRenderWorker[] = [];
  const worker = { postMessage: (message: ToRenderWorker) => sent.push(message) } as unknown as Worker;
  return { shared: { worker, views: new Map(), nextView: 1 }, sent };
}

function part(length: number, complete: boolean): RenderedPart {
  return { epoch: 1, added: [], tail: [], complete, length };
}

describe("workerRenderer", () => {
  it("hands a short text over as it grows, one append per render", () => {
    const { shared, sent } = recordingWorker();
    const parts: RenderedPart[] = [];
    const renderer = workerRenderer(shared, (rendered) => parts.push(rendered));
    renderer.render("One", true);
    renderer.render("One two", true);
    expect(sent).toEqual([
      { view: 1, kind: "text", text: "One" },
      { view: 1, kind: "append", text: " two" },
    ]);
    shared.views.get(1)?.(part(7, true));
    expect(parts).toEqual([part(7, true)]);
    renderer.close();
  });

  it("merges what a long text grows by into one append per wait, without waiting for the worker", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const { shared, sent } = recordingWorker();
      const renderer = workerRenderer(shared, () => undefined);
      const long = "x".repeat(1_000_000);
      renderer.render(long, true);
      expect(sent).toEqual([{ view: 1, kind: "text", text: long }]);
      renderer.render(`${long} one`, true);
      renderer.render(`${long} one two`, true);
      // 1 MB: 10 ms between handovers; the worker has not finished, and that does not matter.
      expect(sent).toHaveLength(1);
      vi.advanceTimersByTime(9);
      expect(sent).toHaveLength(1);
      vi.advanceTimersByTime(1);
      expect(sent.slice(1)).toEqual([{ view: 1, kind: "append", text: " one two" }]);
      renderer.render(`${long} one two`, true);
      vi.advanceTimersByTime(20);
      expect(sent).toHaveLength(2);
      renderer.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("hands a replaced text over whole, even while the worker is behind", () => {
    const { shared, sent } = recordingWorker();
    const renderer = workerRenderer(shared, () => undefined);
    renderer.render("First answer", true);
    renderer.render("Another answer", false);
    expect(sent).toEqual([
      { view: 1, kind: "text", text: "First answer" },
      { view: 1, kind: "text", text: "Another answer" },
    ]);
    renderer.render("Another answer", false);
    expect(sent).toHaveLength(2);
    renderer.close();
    expect(sent[2]).toEqual({ view: 1, kind: "close" });
  });

  it("compares a text not declared growing with what the worker has", () => {
    const { shared, sent } = recordingWorker();
    const renderer = workerRenderer(shared, () => undefined);
    renderer.render("Done text", false);
    shared.views.get(1)?.(part(9, true));
    renderer.render("Done text, and more", false);
    expect(sent.slice(1)).toEqual([{ view: 1, kind: "append", text: ", and more" }]);
    renderer.close();
  });
});
