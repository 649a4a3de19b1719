// Derived facts the components read; JSX holds no logic of its own.
import type { ChatState } from "./chat";

/** Send is enabled whenever no run is going on, even with an empty composer. */
export function canSend(state: ChatState): boolean {
  return state.status === "idle";
}

/** Stop is offered only while a run is going on. */
export function canStop(state: ChatState): boolean {
  return state.status === "streaming";
}

/** "Pi Desktop 0.1.0" once the backend answered, the bare product name before. */
export function appTitle(state: ChatState): string {
  return state.appInfo === null ? "Pi Desktop" : `${state.appInfo.name} ${state.appInfo.version}`;
}
