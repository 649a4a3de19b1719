// Wires the window's state to the backend: at load it subscribes to the window's one event stream (the runs in
// progress, then every envelope of every conversation) and loads the active conversation; intents (send, stop,
// retry, new conversation) call ../../ipc/backend and turn its answers into reducer actions. Components only
// read the state. Nothing here polls: every change of a run arrives as an envelope.
import { useCallback, useEffect, useReducer } from "react";

import {
  abortRun,
  continueRun,
  fetchAppInfo,
  getState,
  newConversation,
  sendPrompt,
  subscribe,
  toCommandError,
} from "../../ipc/backend";
import type { AppState, Envelope, RunAccepted } from "../../ipc/wire";
import type { ChatAction } from "../../state/chat";
import { canSend, canStop } from "../../state/selectors";
import { initialWindowState, shownView, windowReducer, type WindowState } from "../../state/window";
import { envelopeInbox } from "./envelope-inbox";

export interface ChatIntents {
  send: (text: string) => boolean;
  stop: () => void;
  retry: (assistantId: string) => void;
  startNewConversation: () => void;
  /** The sidebar opened a conversation: show it. */
  conversationOpened: (appState: AppState) => void;
  /** The shown conversation was deleted: show what get_state opens instead. */
  reloadAfterDelete: () => void;
  dismissBanner: () => void;
}

export function useChat(): [WindowState, ChatIntents] {
  const [state, dispatch] = useReducer(windowReducer, initialWindowState);
  const view = shownView(state);

  useEffect(() => {
    let current = true;
    fetchAppInfo().then(
      (appInfo) => {
        if (current) dispatch({ type: "app_info_loaded", appInfo });
      },
      () => undefined,
    );
    // Envelopes may overtake the subscription's answer: they wait until its snapshot is applied.
    let held: Envelope[] | null = [];
    const inbox = envelopeInbox((envelopes) => {
      if (!current) return;
      if (held === null) dispatch({ type: "envelopes", envelopes });
      else held.push(...envelopes);
    });
    const startStream = subscribe(inbox).then(
      (snapshot) => {
        if (!current) return;
        dispatch({ type: "subscribed", snapshot });
        const early = held ?? [];
        held = null;
        if (early.length > 0) dispatch({ type: "envelopes", envelopes: early });
      },
      (error: unknown) => {
        held = null;
        if (current) dispatch({ type: "chat", conversationId: "", action: commandFailed("subscribe", error) });
      },
    );
    // Then the conversation the backend keeps active (a restart, a reload of the window; a new one if none).
    startStream
      .then(() => getState())
      .then(
        (appState) => {
          if (current) dispatch({ type: "conversation_loaded", appState, origin: "startup" });
        },
        () => undefined,
      );
    return () => {
      current = false;
    };
  }, []);

  const conversationId = view.conversationId;
  const sendEnabled = canSend(view);
  const stopEnabled = canStop(view);

  const send = useCallback(
    (text: string): boolean => {
      if (!sendEnabled || text.trim() === "") return false;
      dispatch({ type: "chat", conversationId, action: { type: "prompt_submitted", text, imageCount: 0 } });
      sendPrompt(text.trim(), []).then(
        (accepted) => dispatch(runAccepted(conversationId, accepted)),
        (error: unknown) => dispatch({ type: "chat", conversationId, action: commandFailed("prompt", error) }),
      );
      return true;
    },
    [sendEnabled, conversationId],
  );

  const stop = useCallback(() => {
    if (!stopEnabled) return;
    dispatch({ type: "chat", conversationId, action: { type: "stop_requested" } });
    abortRun().catch((error: unknown) =>
      dispatch({ type: "chat", conversationId, action: commandFailed("abort", error) }),
    );
  }, [stopEnabled, conversationId]);

  const retry = useCallback(
    (assistantId: string) => {
      if (!sendEnabled) return;
      dispatch({ type: "chat", conversationId, action: { type: "continue_submitted", assistantId } });
      continueRun().then(
        (accepted) => dispatch(runAccepted(conversationId, accepted)),
        (error: unknown) => dispatch({ type: "chat", conversationId, action: commandFailed("continue_run", error) }),
      );
    },
    [sendEnabled, conversationId],
  );

  const startNewConversation = useCallback(() => {
    newConversation().then(
      (appState) => dispatch({ type: "conversation_loaded", appState, origin: "new" }),
      (error: unknown) => dispatch({ type: "chat", conversationId, action: commandFailed("new_conversation", error) }),
    );
  }, [conversationId]);

  const conversationOpened = useCallback(
    (appState: AppState) => dispatch({ type: "conversation_loaded", appState, origin: "switch" }),
    [],
  );

  const reloadAfterDelete = useCallback(() => {
    getState().then(
      (appState) => dispatch({ type: "conversation_loaded", appState, origin: "switch" }),
      (error: unknown) => dispatch({ type: "chat", conversationId, action: commandFailed("get_state", error) }),
    );
  }, [conversationId]);

  const dismissBanner = useCallback(
    () => dispatch({ type: "chat", conversationId, action: { type: "banner_dismissed" } }),
    [conversationId],
  );

  return [state, { send, stop, retry, startNewConversation, conversationOpened, reloadAfterDelete, dismissBanner }];
}

function commandFailed(command: string, error: unknown): ChatAction {
  return { type: "command_failed", command, error: toCommandError(error) };
}

/**
 * The host accepted the run asked for in `conversationId`. Had it taken the run in another conversation (the
 * active one changed on the way), this conversation waits for nothing any more.
 */
function runAccepted(conversationId: string, accepted: RunAccepted) {
  const runId = accepted.conversationId === conversationId ? accepted.runId : 0;
  return { type: "chat" as const, conversationId, action: { type: "run_accepted" as const, runId } };
}
