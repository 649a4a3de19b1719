// Wires the window's state to the backend: at load it subscribes to the window's one event stream (the runs in
// progress, then every envelope of every conversation) and loads the active conversation; intents (send, stop,
// retry, steer or queue a follow-up, cancel or send a queued message, new conversation) call ../../ipc/backend and
// turn its answers into reducer actions. Components only read the state. Nothing here polls: every change of a
// run, and of its queue, arrives as an envelope.
import { useCallback, useEffect, useReducer, useRef, type Dispatch } from "react";

import {
  abortRun,
  cancelQueued,
  continueRun,
  fetchAppInfo,
  getState,
  newConversation,
  queueMessage,
  resolveApproval,
  sendPrompt,
  sendQueued,
  subscribe,
  toCommandError,
  type QueueKind,
} from "../../ipc/backend";
import type { AppState, ApprovalDecision, Envelope, RunAccepted } from "../../ipc/wire";
import type { ApprovalView, ChatAction } from "../../state/chat";
import type { QueuedChip } from "../../state/queue";
import type { UserAttachment } from "../../state/user-attachments";
import { canSend, canStop } from "../../state/selectors";
import {
  initialWindowState,
  isAnswering,
  shownView,
  windowReducer,
  type WindowAction,
  type WindowState,
} from "../../state/window";
import { listConversations, OPENED_FROM_END, openConversation } from "../../ipc/conversations";
import { earlyOr } from "../../ipc/early";
import { onNewConversationRequested, onOpenConversationRequested } from "../../ipc/app-events";
import { adjacentConversationId } from "../sidebar/sidebar-model";
import { promptFiles, promptImages, type PendingAttachment } from "./attachment-rules";
import { envelopeInbox } from "./envelope-inbox";
import { useMessageActions, type MessageIntents } from "./useMessageActions";

export interface ChatIntents {
  /** Sends the composer's text with its attachments (images, files the host has read). */
  send: (text: string, attachments?: readonly PendingAttachment[]) => boolean;
  stop: () => void;
  retry: (assistantId: string) => void;
  startNewConversation: () => void;
  /** The sidebar opened a conversation: show it. */
  conversationOpened: (appState: AppState) => void;
  /** Opens the conversation above (-1) or below (1) the shown one in the sidebar's order. */
  openAdjacentConversation: (step: -1 | 1) => void;
  /** The shown conversation was deleted: show what get_state opens instead. */
  reloadAfterDelete: () => void;
  dismissBanner: () => void;
  /** The user answered a tool call's approval question. */
  answerApproval: (view: ApprovalView, decision: ApprovalDecision) => void;
  /** Queues a steering message or a follow-up during a run; resolves whether the host queued it. */
  queue: (kind: QueueKind, text: string) => Promise<boolean>;
  /** Cancels (or discards) a queued message. */
  cancelQueued: (chip: QueuedChip) => void;
  /** Sends a queued message now: a run of its own between runs, steering during one. */
  sendQueued: (chip: QueuedChip) => void;
  /** The actions on one message: versions, branches, deletion, continuation. */
  messages: MessageIntents;
}

export function useChat(): [WindowState, ChatIntents] {
  const [state, dispatch] = useReducer(windowReducer, initialWindowState);
  const view = shownView(state);

  const mounted = useRef(true);
  const views = useRef(state.views);
  views.current = state.views;

  // Subscribes the window's stream (again: the host replaces the earlier subscription). Envelopes may overtake
  // the answer: they wait until its snapshot is applied (one seen twice is ignored by its `seq`).
  const connect = useCallback((): Promise<void> => {
    let held: Envelope[] | null = [];
    const inbox = envelopeInbox((envelopes) => {
      if (!mounted.current) return;
      if (held === null) dispatch({ type: "envelopes", envelopes });
      else held.push(...envelopes);
    });
    return subscribe(inbox).then(
      (snapshot) => {
        if (!mounted.current) return;
        dispatch({ type: "subscribed", snapshot });
        const early = held ?? [];
        held = null;
        if (early.length > 0) dispatch({ type: "envelopes", envelopes: early });
      },
      (error: unknown) => {
        held = null;
        if (mounted.current) dispatch({ type: "chat", conversationId: "", action: commandFailed("subscribe", error) });
      },
    );
  }, []);

  /** Shows `appState`; a run the host reports there that the window does not follow is fetched with a new snapshot. */
  const show = useCallback(
    (appState: AppState, origin: "startup" | "switch" | "new") => {
      dispatch({ type: "conversation_loaded", appState, origin });
      const followed = views.current[appState.conversationId ?? ""];
      if (appState.isStreaming && (followed === undefined || followed.runId === null)) void connect();
    },
    [connect],
  );

  useEffect(() => {
    mounted.current = true;
    earlyOr("appInfo", fetchAppInfo).then(
      (appInfo) => {
        if (mounted.current) dispatch({ type: "app_info_loaded", appInfo });
      },
      () => undefined,
    );
    // Then the conversation the backend keeps active (a restart, a reload of the window; a new one if none).
    // Without a provider there may be none yet: the first prompt names it.
    connect()
      .then(() => getState(OPENED_FROM_END))
      .then(
        (appState) => {
          if (mounted.current) show(appState, "startup");
        },
        () => undefined,
      );
    return () => {
      mounted.current = false;
    };
  }, [connect, show]);

  const conversationId = view.conversationId;
  const answering = isAnswering(view);

  // A conversation opened from its end gets its beginning once its end is on screen and nothing runs there.
  const leftOut = view.leftOut;
  useEffect(() => {
    if (leftOut === 0 || answering) return;
    let wanted = true;
    const frame = requestAnimationFrame(() => {
      getState().then(
        (appState) => {
          if (wanted && mounted.current && appState.conversationId === conversationId) {
            dispatch({ type: "earlier_loaded", appState });
          }
        },
        (error: unknown) => {
          if (wanted && mounted.current) dispatch({ type: "chat", conversationId, action: commandFailed("get_state", error) });
        },
      );
    });
    return () => {
      wanted = false;
      cancelAnimationFrame(frame);
    };
  }, [conversationId, leftOut, answering]);

  const sendEnabled = canSend(view);
  const stopEnabled = canStop(view);

  const send = useCallback(
    (text: string, attachments: readonly PendingAttachment[] = []): boolean => {
      const images = promptImages(attachments);
      const files = promptFiles(attachments);
      if (!sendEnabled || (text.trim() === "" && images.length === 0 && files.length === 0)) return false;
      const shown: UserAttachment[] = [
        ...files.map((file) => ({ kind: "file" as const, name: file.name })),
        ...images.map((image) => ({ kind: "image" as const, ...image })),
      ];
      dispatch({
        type: "chat",
        conversationId,
        action: { type: "prompt_submitted", text, imageCount: images.length, attachments: shown },
      });
      sendPrompt(text.trim(), images, files).then(
        (accepted) => acceptRun(dispatch, conversationId, accepted),
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
        (accepted) => acceptRun(dispatch, conversationId, accepted),
        (error: unknown) => dispatch({ type: "chat", conversationId, action: commandFailed("continue_run", error) }),
      );
    },
    [sendEnabled, conversationId],
  );

  const startNewConversation = useCallback(() => {
    newConversation().then(
      (appState) => show(appState, "new"),
      (error: unknown) => dispatch({ type: "chat", conversationId, action: commandFailed("new_conversation", error) }),
    );
  }, [conversationId, show]);

  const conversationOpened = useCallback((appState: AppState) => show(appState, "switch"), [show]);

  const openAdjacentConversation = useCallback(
    (step: -1 | 1) => {
      const failed = (error: unknown) =>
        dispatch({ type: "chat", conversationId, action: commandFailed("open_conversation", error) });
      listConversations().then((list) => {
        const target = adjacentConversationId(list.days, conversationId === "" ? list.activeId : conversationId, step);
        if (target === null || target === conversationId) return;
        openConversation(target).then((appState) => show(appState, "switch"), failed);
      }, failed);
    },
    [conversationId, show],
  );

  // A clicked notification names a conversation: show it, unless it is the one on screen already (opening it
  // again would reload it under an answer that may have started since). The tray asks for a new conversation.
  const shownId = useRef(conversationId);
  shownId.current = conversationId;
  const startNew = useRef(startNewConversation);
  startNew.current = startNewConversation;
  useEffect(() => {
    // A window that cannot listen gets no clicks and no tray requests; nothing else changes.
    const notListening = () => null;
    const listening = [
      onOpenConversationRequested((target) => {
        if (target === shownId.current) return;
        openConversation(target).then(
          (appState) => show(appState, "switch"),
          (error: unknown) =>
            dispatch({ type: "chat", conversationId: shownId.current, action: commandFailed("open_conversation", error) }),
        );
      }).catch(notListening),
      onNewConversationRequested(() => startNew.current()).catch(notListening),
    ];
    return () => {
      for (const listener of listening) void listener.then((unlisten) => unlisten?.());
    };
  }, [show]);

  const reloadAfterDelete = useCallback(() => {
    getState().then(
      (appState) => show(appState, "switch"),
      (error: unknown) => dispatch({ type: "chat", conversationId, action: commandFailed("get_state", error) }),
    );
  }, [conversationId, show]);

  const answerApproval = useCallback(
    (view: ApprovalView, decision: ApprovalDecision) => {
      const toolCallId = view.request.toolCallId;
      dispatch({ type: "chat", conversationId, action: { type: "approval_answered", toolCallId } });
      resolveApproval(conversationId, view.request.requestId, decision).catch((error: unknown) =>
        dispatch({
          type: "chat",
          conversationId,
          action: { type: "approval_answer_failed", toolCallId, error: toCommandError(error) },
        }),
      );
    },
    [conversationId],
  );

  const queue = useCallback(
    (kind: QueueKind, text: string): Promise<boolean> =>
      queueMessage(kind, text).then(
        () => true,
        (error: unknown) => {
          dispatch({ type: "chat", conversationId, action: commandFailed(kind, error) });
          return false;
        },
      ),
    [conversationId],
  );

  const cancelQueuedMessage = useCallback(
    (chip: QueuedChip) => {
      dispatch({ type: "chat", conversationId, action: { type: "queued_answer_requested", id: chip.id } });
      cancelQueued(conversationId, chip.id).catch((error: unknown) =>
        dispatch({
          type: "chat",
          conversationId,
          action: { type: "queued_answer_failed", id: chip.id, command: "cancel_queued", error: toCommandError(error) },
        }),
      );
    },
    [conversationId],
  );

  const sendQueuedMessage = useCallback(
    (chip: QueuedChip) => {
      // Between runs the message becomes a prompt, so this window asks for a run, as Send does.
      const asksForRun = sendEnabled;
      const command = asksForRun ? "send_queued" : "steer_queued";
      const requested: ChatAction = asksForRun
        ? { type: "queued_send_requested", id: chip.id }
        : { type: "queued_answer_requested", id: chip.id };
      dispatch({ type: "chat", conversationId, action: requested });
      sendQueued(conversationId, chip.id).then(
        (outcome) => {
          if (outcome.type === "started") acceptRun(dispatch, conversationId, outcome);
          // A run began meanwhile and the message waits as steering in it: no run of this window's comes.
          else if (asksForRun) dispatch({ type: "chat", conversationId, action: { type: "queued_send_steered" } });
        },
        (error: unknown) =>
          dispatch({
            type: "chat",
            conversationId,
            action: { type: "queued_answer_failed", id: chip.id, command, error: toCommandError(error) },
          }),
      );
    },
    [sendEnabled, conversationId],
  );

  const acceptMessageRun = useCallback(
    (runConversationId: string, accepted: RunAccepted) => acceptRun(dispatch, runConversationId, accepted),
    [],
  );
  const messages = useMessageActions(dispatch, view, acceptMessageRun);

  const dismissBanner = useCallback(
    () => dispatch({ type: "chat", conversationId, action: { type: "banner_dismissed" } }),
    [conversationId],
  );

  return [
    state,
    {
      send,
      stop,
      retry,
      startNewConversation,
      conversationOpened,
      openAdjacentConversation,
      reloadAfterDelete,
      dismissBanner,
      answerApproval,
      queue,
      cancelQueued: cancelQueuedMessage,
      sendQueued: sendQueuedMessage,
      messages,
    },
  ];
}

function commandFailed(command: string, error: unknown): ChatAction {
  return { type: "command_failed", command, error: toCommandError(error) };
}

/**
 * The host accepted the run asked for in `conversationId` (when that was still unnamed, the host named it now).
 * Had it taken the run in another conversation (the active one changed on the way), this one waits for nothing
 * any more and its unconfirmed message goes.
 */
function acceptRun(dispatch: Dispatch<WindowAction>, conversationId: string, accepted: RunAccepted): void {
  if (conversationId === "") dispatch({ type: "conversation_named", conversationId: accepted.conversationId });
  if (conversationId === "" || accepted.conversationId === conversationId) {
    dispatch({ type: "chat", conversationId: accepted.conversationId, action: { type: "run_accepted", runId: accepted.runId } });
  } else {
    dispatch({ type: "chat", conversationId, action: { type: "run_taken_elsewhere" } });
  }
}
