// The replay of one stored run in the window: fetched once, then stepped by the controls or played at a speed
// (each next event after its logged gap, divided by the speed and capped).
import { useCallback, useEffect, useState } from "react";

import { runReplay } from "../../ipc/inspector";
import {
  delayBeforeNext,
  startReplay,
  stepReplay,
  type ReplaySpeed,
  type ReplayState,
} from "./replay";

export interface ReplayControls {
  replay: ReplayState | null;
  /** Why the run could not be replayed, if it could not. */
  error: string | null;
  start: (conversationId: string, logId: number) => void;
  play: () => void;
  pause: () => void;
  step: () => void;
  setSpeed: (speed: ReplaySpeed) => void;
  end: () => void;
}

export function useReplay(): ReplayControls {
  const [replay, setReplay] = useState<ReplayState | null>(null);
  const [error, setError] = useState<string | null>(null);

  const start = useCallback((conversationId: string, logId: number) => {
    setError(null);
    runReplay(conversationId, logId).then(
      // It opens paused on the conversation as it stood before the run: Play or Step moves it.
      (stored) => setReplay(startReplay(conversationId, logId, stored)),
      (reason: unknown) => setError(messageOf(reason)),
    );
  }, []);

  // Each step makes a new state, which schedules the step after it.
  useEffect(() => {
    if (replay === null || !replay.playing) return;
    const delay = delayBeforeNext(replay);
    if (delay === null) return;
    const timer = window.setTimeout(() => setReplay((current) => (current === null ? null : stepReplay(current))), delay);
    return () => window.clearTimeout(timer);
  }, [replay]);

  return {
    replay,
    error,
    start,
    play: useCallback(() => setReplay((current) => (current === null ? null : { ...current, playing: true })), []),
    pause: useCallback(() => setReplay((current) => (current === null ? null : { ...current, playing: false })), []),
    step: useCallback(
      () => setReplay((current) => (current === null ? null : stepReplay({ ...current, playing: false }))),
      [],
    ),
    setSpeed: useCallback(
      (speed: ReplaySpeed) => setReplay((current) => (current === null ? null : { ...current, speed })),
      [],
    ),
    end: useCallback(() => setReplay(null), []),
  };
}

function messageOf(reason: unknown): string {
  if (typeof reason === "object" && reason !== null && "message" in reason) {
    return String((reason as { message: unknown }).message);
  }
  return String(reason);
}
