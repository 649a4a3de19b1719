import { describe, expect, it } from "vitest";

import { RenderBacklog } from "./render-backlog";

describe("RenderBacklog", () => {
  it("is caught up once every view that was behind caught up, and tells its listeners on each change", () => {
    const backlog = new RenderBacklog();
    const changes: boolean[] = [];
    backlog.subscribe(() => changes.push(backlog.caughtUp()));
    const first = {};
    const second = {};
    backlog.set(first, true);
    backlog.set(second, true);
    backlog.set(first, false);
    expect(backlog.caughtUp()).toBe(false);
    backlog.set(second, false);
    expect(backlog.caughtUp()).toBe(true);
    expect(changes).toEqual([false, true]);
  });

  it("reports a nested backlog to its parent while any of its views is behind", () => {
    const window = new RenderBacklog();
    const answer = new RenderBacklog(window);
    const view = {};
    answer.set(view, true);
    expect(window.caughtUp()).toBe(false);
    answer.set(view, false);
    expect(window.caughtUp()).toBe(true);
  });
});
