// Which views still have text to render. A Markdown view that is behind its text (a long answer arrives
// faster than it can be rendered within a frame's budget) marks itself pending here until it caught up, so
// what the window says about a run (its status, an answer's state, Send) never runs ahead of the text shown.
//
// Backlogs nest: an answer has its own (its data-state waits for its views), and it reports to the window's.
import { createContext, useContext, useEffect, useMemo, useSyncExternalStore } from "react";

export class RenderBacklog {
  private readonly pending = new Set<object>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly parent: RenderBacklog | null = null) {}

  /** Marks `view` as behind (`true`) or caught up (`false`). */
  set(view: object, behind: boolean): void {
    const wasEmpty = this.pending.size === 0;
    if (behind) this.pending.add(view);
    else this.pending.delete(view);
    const isEmpty = this.pending.size === 0;
    if (wasEmpty === isEmpty) return;
    this.parent?.set(this, !isEmpty);
    for (const listener of this.listeners) listener();
  }

  caughtUp(): boolean {
    return this.pending.size === 0;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export const RenderBacklogContext = createContext<RenderBacklog | null>(null);

/** True while no view under `backlog` has text it has not rendered yet. */
export function useCaughtUp(backlog: RenderBacklog): boolean {
  return useSyncExternalStore(
    (listener) => backlog.subscribe(listener),
    () => backlog.caughtUp(),
  );
}

/** A backlog for a subtree that reports to the one above it (if any); it leaves that one when unmounted. */
export function useNestedBacklog(): RenderBacklog {
  const parent = useContext(RenderBacklogContext);
  const backlog = useMemo(() => new RenderBacklog(parent), [parent]);
  useEffect(() => () => parent?.set(backlog, false), [parent, backlog]);
  return backlog;
}
