/**
 * Wraps an asynchronous job so that at most one runs at a time: a job asked for while one runs waits for it, and
 * a newer request replaces the one waiting (the replaced one never runs). What a search box needs when each
 * keystroke asks again: the store never works through a queue of queries nobody waits for any more.
 */
export function latestOnly<A>(run: (argument: A) => Promise<unknown>): (argument: A) => void {
  let running = false;
  let waiting: { argument: A } | null = null;
  const start = (argument: A) => {
    running = true;
    const settled = () => {
      running = false;
      const next = waiting;
      waiting = null;
      if (next !== null) start(next.argument);
    };
    run(argument).then(settled, settled);
  };
  return (argument) => {
    if (running) waiting = { argument };
    else start(argument);
  };
}
