// Answers the main window asks for as soon as its script runs. React runs effects only after its first frame is
// painted, some 60 ms into a start on a machine drawing without a GPU; asked from them, the host would sit idle
// all that time, and the first frame would show an empty sidebar. Asked early, the answers that have come by the
// first render are in the first frame (`arrived`), and each answer goes to the first caller that asks for it in
// the page's first seconds (`earlyOr`); anyone later asks the host again, since the answer may have changed.

/** What is asked early: each names one command with fixed arguments. */
export type EarlyAnswer = "settings" | "providerStatus" | "appInfo" | "conversationList";

/** How long after the page's start an early answer is still handed out (ms since navigation). */
export const EARLY_ANSWERS_KEPT_MS = 3_000;

interface Asked {
  answer: Promise<unknown>;
  /** Set once the answer came (not for a failure). */
  value?: { of: unknown };
}

const asked = new Map<EarlyAnswer, Asked>();

/** Asks now; the first caller of `earlyOr(which, …)` gets this answer. */
export function askEarly(which: EarlyAnswer, ask: () => Promise<unknown>): void {
  const entry: Asked = { answer: ask() };
  // A failure nobody takes is not an unhandled rejection; the caller that takes it still sees it.
  entry.answer.then(
    (value) => {
      entry.value = { of: value };
    },
    () => undefined,
  );
  asked.set(which, entry);
}

/** Resolves once every early answer has come (or failed), or after `waitAtMostMs`, whichever is first. */
export function earlyAnswersIn(waitAtMostMs: number): Promise<void> {
  const all = Promise.allSettled([...asked.values()].map((entry) => entry.answer));
  const late = new Promise((resolve) => setTimeout(resolve, waitAtMostMs));
  return Promise.race([all, late]).then(() => undefined);
}

/** The early answer for `which` if it has come and is still fresh, without taking it; else null. */
export function arrived<T>(which: EarlyAnswer): T | null {
  const value = asked.get(which)?.value;
  return value !== undefined && performance.now() < EARLY_ANSWERS_KEPT_MS ? (value.of as T) : null;
}

/** The early answer for `which` if there is one still fresh (once), else `ask()`. */
export function earlyOr<T>(which: EarlyAnswer, ask: () => Promise<T>): Promise<T> {
  const entry = asked.get(which);
  asked.delete(which);
  if (entry !== undefined && performance.now() < EARLY_ANSWERS_KEPT_MS) return entry.answer as Promise<T>;
  return ask();
}
