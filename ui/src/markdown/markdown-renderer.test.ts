import { describe, expect, it } from "vitest";

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
  it("hands over the first text at once, then merges what grows while the worker is behind into one append", () => {
    const { shared, sent } = recordingWorker();
    const parts: RenderedPart[] = [];
    const renderer = workerRenderer(shared, (rendered) => parts.push(rendered));
    const deliver = shared.views.get(1);
    if (deliver === undefined) throw new Error("the view was not registered");

    renderer.render("One", true);
    expect(sent).toEqual([{ view: 1, kind: "text", text: "One" }]);
    renderer.render("One two", true);
    renderer.render("One two three", true);
    // Behind: nothing more goes to the worker yet.
    expect(sent).toHaveLength(1);

    deliver(part(3, false));
    expect(sent).toHaveLength(1);
    deliver(part(3, true));
    // It rendered all it had: everything that arrived since goes over as one append (the text is short, no wait).
    expect(sent.slice(1)).toEqual([{ view: 1, kind: "append", text: " two three" }]);
    expect(parts).toHaveLength(2);
    renderer.close();
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
