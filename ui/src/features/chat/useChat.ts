// Wires the chat reducer to the backend: intents (send, stop, retry, new conversation) call ../../ipc/backend
// and turn its answers and the run's envelopes into reducer actions. Components only read the state.
//
// Every run is tagged with the generation (state.generation) it was sent in: after a switch of conversation the
// old run goes on in the background, and its envelopes and its promise's result are dropped by the reducer.
import { useCallback, useEffect, useReducer, useRef, type Dispatch } from "react";

import {
  abortRun,
  continueRun,
  fetchAppInfo,
  getState,
  newConversation,
  sendPrompt,
  toCommandError,
} from "../../ipc/backend";
import type { AppState, Envelope } from "../../ipc/wire";
import { chatReducer, initialChatState, type ChatAction, type ChatState } from "../../state/chat";
import { canSend, canStop, followsForeignRun } from "../../state/selectors";
import { envelopeInbox } from "./envelope-inbox";

/** How often get_state is polled while a run this window cannot follow is active. */
const FOREIGN_RUN_POLL_MS = 1000;

export interface ChatIntents {
  send: (text: string) => boolean;
  stop: () => void;
  retry: (assistantId: string) => void;
  startNewConversation: () => void;
  /** The sidebar opened a conversation: show exactly its state. */
  conversationOpened: (appState: AppState) => void;
  /** The shown conversation was deleted: show what get_state opens instead. */
  reloadAfterDelete: () => void;
  dismissBanner: () => void;
}

export function useChat(): [ChatState, ChatIntents] {
  const [state, dispatch] = useReducer(chatReducer, initialChatState);

  const generation = useRef(state.generation);
  generation.current = state.generation;

  useEffect(() => {
    let current = true;
    fetchAppInfo().then(
      (appInfo) => {
        if (current) dispatch({ type: "app_info_loaded", appInfo });
      },
      () => undefined,
    );
    // The conversation the backend kept (a restart, a reload of the window); none is fine too.
    getState().then(
      (appState) => {
        if (current) dispatch({ type: "conversation_loaded", appState, origin: "startup" });
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, []);

  const pollForeignRun = followsForeignRun(state);
  useEffect(() => {
    if (!pollForeignRun) return;
    const timer = window.setInterval(() => {
      getState().then(
        (appState) => dispatch({ type: "conversation_loaded", appState, origin: "refresh" }),
        () => undefined,
      );
    }, FOREIGN_RUN_POLL_MS);
    return () => window.clearInterval(timer);
  }, [pollForeignRun]);

  const sendEnabled = canSend(state);
  const stopEnabled = canStop(state);

  const send = useCallback(
    (text: string): boolean => {
      if (!sendEnabled || text.trim() === "") return false;
      const tag = generation.current;
      dispatch({ type: "prompt_submitted", text, imageCount: 0 });
      sendPrompt(text.trim(), [], runInbox(dispatch, tag)).then(
        () => dispatch({ type: "run_command_settled", generation: tag }),
        (error: unknown) =>
          dispatch({ type: "command_failed", command: "prompt", error: toCommandError(error), generation: tag }),
      );
      return true;
    },
    [sendEnabled],
  );

  const stop = useCallback(() => {
    if (!stopEnabled) return;
    dispatch({ type: "stop_requested" });
    abortRun().catch((error: unknown) =>
      dispatch({ type: "command_failed", command: "abort", error: toCommandError(error) }),
    );
  }, [stopEnabled]);

  const retry = useCallback(
    (assistantId: string) => {
      if (!sendEnabled) return;
      const tag = generation.current;
      dispatch({ type: "continue_submitted", assistantId });
      continueRun(runInbox(dispatch, tag)).then(
        () => dispatch({ type: "run_command_settled", generation: tag }),
        (error: unknown) =>
          dispatch({
            type: "command_failed",
            command: "continue_run",
            error: toCommandError(error),
            generation: tag,
          }),
      );
    },
    [sendEnabled],
  );

  const startNewConversation = useCallback(() => {
    newConversation().then(
      (appState) => dispatch({ type: "conversation_loaded", appState, origin: "new" }),
      (error: unknown) =>
        dispatch({ type: "command_failed", command: "new_conversation", error: toCommandError(error) }),
    );
  }, []);

  const conversationOpened = useCallback(
    (appState: AppState) => dispatch({ type: "conversation_loaded", appState, origin: "switch" }),
    [],
  );

  const reloadAfterDelete = useCallback(() => {
    getState().then(
      (appState) => dispatch({ type: "conversation_loaded", appState, origin: "switch" }),
      (error: unknown) => dispatch({ type: "command_failed", command: "get_state", error: toCommandError(error) }),
    );
  }, []);

  const dismissBanner = useCallback(() => dispatch({ type: "banner_dismissed" }), []);

  return [state, { send, stop, retry, startNewConversation, conversationOpened, reloadAfterDelete, dismissBanner }];
}

/** The Channel handler of a run sent in generation `tag`: its envelopes reach the reducer a frame's worth at a time. */
function runInbox(dispatch: Dispatch<ChatAction>, tag: number): (envelope: Envelope) => void {
  return envelopeInbox((envelopes) => dispatch({ type: "envelopes", envelopes, generation: tag }));
}
