// The chat window: the conversation sidebar (collapsible; collapsed at first in a narrow window) beside the
// header, error banner, transcript, queued messages, composer and status line, plus the settings panel and the
// loop inspector beside the conversation (Ctrl+I), whose Replay shows a past run in the transcript. The window's
// keyboard shortcuts (../shortcuts/shortcuts.ts) are handled here, and the shortcuts sheet (Ctrl+/) opens here.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";

import { useStrings } from "../../i18n/I18n";
import type { Language } from "../../i18n/strings";
import { getState } from "../../ipc/backend";
import type { ModelSummary, SendKeySetting, SettingsView } from "../../ipc/wire";
import { RenderBacklog, RenderBacklogContext, useCaughtUp } from "../../markdown/render-backlog";
import {
  appTitle,
  canSend,
  canStop,
  lastAnswerModel,
  sendBlockedReason,
  showsSetupCard,
  statusLine,
  type ProviderState,
} from "../../state/selectors";
import { answeringIds, shownView } from "../../state/window";
import { InspectorPanel } from "../inspector/InspectorPanel";
import { inspectorStrings } from "../inspector/inspector-strings";
import { ReplayControls } from "../inspector/ReplayControls";
import { useReplay } from "../inspector/useReplay";
import { SettingsPanel } from "../settings/SettingsPanel";
import { SetupCard } from "../setup/SetupCard";
import { ShortcutsSheet } from "../shortcuts/ShortcutsSheet";
import { isTextField, windowShortcut, type OpenModal, type ShortcutAction } from "../shortcuts/shortcuts";
import { Sidebar } from "../sidebar/Sidebar";
import { AnswerAnnouncer } from "./AnswerAnnouncer";
import { ApprovalContext } from "./approval-context";
import { Composer } from "./Composer";
import { ErrorBanner } from "./ErrorBanner";
import { KeyboardIcon, LoopIcon, PlusIcon, SettingsIcon, SidebarIcon } from "./icons";
import { ModelPicker } from "./ModelPicker";
import { QueuedMessages } from "./QueuedMessages";
import { RetryLine } from "./RetryLine";
import { StatusLine } from "./StatusLine";
import { Transcript } from "./Transcript";
import { useChat } from "./useChat";
import { useStickToBottom } from "./useStickToBottom";

/** From this window width on the sidebar starts open; below it starts collapsed and opens over the chat. */
const WIDE_WINDOW_PX = 800;

interface ChatScreenProps {
  language: Language;
  settings: SettingsView | null;
  /** Whether a provider is usable: the setup card and Send's reason follow it. */
  provider: ProviderState;
  onSettingsChanged: (settings: SettingsView) => void;
  /** Which key sends the composer's text. */
  sendKey: SendKeySetting;
}

export function ChatScreen({ language, settings, provider, onSettingsChanged, sendKey }: ChatScreenProps) {
  const strings = useStrings();
  const [windowState, intents] = useChat();
  const state = shownView(windowState);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [inspectorOpen, setInspectorOpen] = useState(false);
  const [shortcutsOpen, setShortcutsOpen] = useState(false);
  const [searchFocusToken, setSearchFocusToken] = useState(0);
  const composerInput = useRef<HTMLTextAreaElement>(null);
  const replayer = useReplay();
  // A replay belongs to the conversation it came from; switching away ends it.
  const replay = replayer.replay !== null && replayer.replay.conversationId === state.conversationId ? replayer.replay : null;
  const shown = replay?.view ?? state;
  const inspectorRefresh = useMemo(
    () =>
      [
        state.conversationId,
        state.lastRunId,
        state.runStatus,
        state.turnCount,
        Object.values(state.tools).filter((tool) => tool.status !== "running").length,
        Object.keys(state.tools).length,
      ].join(":"),
    [state.conversationId, state.lastRunId, state.runStatus, state.turnCount, state.tools],
  );
  const [sidebarOpen, setSidebarOpen] = useState(() => window.innerWidth >= WIDE_WINDOW_PX);
  const scroller = useRef<HTMLElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const stick = useStickToBottom(scroller, content);
  const { scrollToBottom } = stick;
  // A conversation opens at its end, whatever the one shown before was scrolled to (before the paint).
  useLayoutEffect(() => scrollToBottom(), [shown.conversationId, scrollToBottom]);
  const [backlog] = useState(() => new RenderBacklog());
  // The run's end is shown (idle, Send) only once the answer's text is on screen too.
  const caughtUp = useCaughtUp(backlog);
  const facts = statusLine(state);
  const shownFacts = caughtUp || facts.status !== "idle" ? facts : { ...facts, status: "running" as const };
  const stopEnabled = canStop(state);
  const { stop, answerApproval } = intents;
  const approvalAnswers = useMemo(
    () =>
      replay === null
        ? { approvals: state.approvals, answer: answerApproval }
        : { approvals: replay.view.approvals, answer: () => undefined },
    [state.approvals, answerApproval, replay],
  );

  // The sidebar follows the window across the width threshold (collapsed when it becomes narrow); in between,
  // the toggle decides.
  useEffect(() => {
    const wide = window.matchMedia(`(min-width: ${WIDE_WINDOW_PX}px)`);
    const onChange = (event: MediaQueryListEvent) => setSidebarOpen(event.matches);
    wide.addEventListener("change", onChange);
    return () => wide.removeEventListener("change", onChange);
  }, []);

  // One handler for every window shortcut; what each does is read at the key, so the listener stays put.
  const modal: OpenModal = settingsOpen ? "settings" : shortcutsOpen ? "shortcuts" : "none";
  const perform = useRef<(action: ShortcutAction) => void>(() => undefined);
  perform.current = (action) => {
    switch (action) {
      case "newConversation":
        intents.startNewConversation();
        return;
      case "searchConversations":
        setSidebarOpen(true);
        setSearchFocusToken((token) => token + 1);
        return;
      case "toggleSettings":
        setSettingsOpen((open) => !open);
        return;
      case "focusComposer":
        composerInput.current?.focus();
        return;
      case "previousConversation":
        intents.openAdjacentConversation(-1);
        return;
      case "nextConversation":
        intents.openAdjacentConversation(1);
        return;
      case "toggleSidebar":
        setSidebarOpen((open) => !open);
        return;
      case "toggleShortcuts":
        setShortcutsOpen((open) => !open);
        return;
      case "toggleInspector":
        setInspectorOpen((open) => !open);
        return;
      case "stopRun":
        stop();
        return;
    }
  };
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const action = windowShortcut(event, {
        modal,
        inTextField: isTextField(document.activeElement),
        canStop: stopEnabled,
      });
      if (action === null) return;
      event.preventDefault();
      perform.current(action);
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [modal, stopEnabled]);
  const closeShortcuts = useCallback(() => setShortcutsOpen(false), []);

  // The model the active conversation's session uses, read again when the conversation, the provider, the
  // run's end or the picked model changes (a reopened conversation starts on the model stored with it).
  const [sessionModel, setSessionModel] = useState("");
  const [modelFacts, setModelFacts] = useState<ModelSummary | null>(null);
  const [modelRevision, setModelRevision] = useState(0);
  const usable = provider.status === "usable";
  // A backend that cannot say whether the provider is usable still sends, so its model's facts count too.
  const sending = usable || provider.status === "unknown";
  const settled = state.runStatus === "idle" && state.runId === null;
  useEffect(() => {
    if (!sending || !settled) return;
    let current = true;
    getState().then(
      (appState) => {
        if (!current) return;
        setSessionModel(appState.model.id);
        setModelFacts(appState.model);
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [sending, settled, state.conversationId, provider, modelRevision]);
  const blocked = sendBlockedReason(provider);
  const shownModel = usable ? sessionModel || provider.model : (settings?.model ?? "");

  const { protocolError } = windowState;
  const banner =
    state.banner ?? (protocolError === null ? null : { source: "protocol" as const, kind: "protocol", code: "protocol", detail: protocolError });

  return (
    <div className={sidebarOpen ? "app-layout sidebar-open" : "app-layout"}>
      {sidebarOpen ? (
        <div className="sidebar-slot">
          <Sidebar
            language={language}
            activeConversationId={windowState.shownId}
            answeringIds={answeringIds(windowState)}
            refreshToken={windowState.listRevision}
            onConversationOpened={(appState) => {
              intents.conversationOpened(appState);
              if (window.innerWidth < WIDE_WINDOW_PX) setSidebarOpen(false);
            }}
            onNewConversation={() => {
              intents.startNewConversation();
              if (window.innerWidth < WIDE_WINDOW_PX) setSidebarOpen(false);
            }}
            onActiveConversationDeleted={intents.reloadAfterDelete}
            focusSearchToken={searchFocusToken}
          />
        </div>
      ) : null}
      {sidebarOpen ? (
        // Only shown in a narrow window, where the sidebar lies over the chat: a click beside it closes it.
        <button
          type="button"
          className="sidebar-backdrop"
          data-testid="sidebar-backdrop"
          aria-label={strings.toggleConversations}
          tabIndex={-1}
          onClick={() => setSidebarOpen(false)}
        />
      ) : null}
      <div className="chat-screen">
        <header className="chat-header">
          <button
            type="button"
            className="icon-button"
            data-testid="sidebar-toggle"
            aria-label={strings.toggleConversations}
            aria-expanded={sidebarOpen}
            title={strings.toggleConversations}
            onClick={() => setSidebarOpen((open) => !open)}
          >
            <SidebarIcon />
          </button>
          <h1 className="chat-title" data-testid="app-title">
            {appTitle(windowState.appInfo)}
          </h1>
          <div className="header-actions">
            {usable && replay === null ? (
              <ModelPicker
                key={state.conversationId}
                conversationId={state.conversationId}
                model={shownModel}
                runActive={stopEnabled}
                onChanged={(model) => {
                  setSessionModel(model);
                  setModelRevision((revision) => revision + 1);
                }}
              />
            ) : null}
            <button
              type="button"
              className="ghost-button"
              data-testid="new-conversation-button"
              onClick={intents.startNewConversation}
            >
              <PlusIcon />
              <span>{strings.newConversation}</span>
            </button>
            <button
              type="button"
              className={inspectorOpen ? "icon-button active" : "icon-button"}
              data-testid="inspector-toggle"
              aria-label={inspectorStrings(language).toggle}
              aria-pressed={inspectorOpen}
              title={inspectorStrings(language).toggle}
              onClick={() => setInspectorOpen((open) => !open)}
            >
              <LoopIcon />
            </button>
            <button
              type="button"
              className="icon-button"
              data-testid="shortcuts-button"
              aria-label={strings.shortcuts.open}
              title={strings.shortcuts.open}
              onClick={() => setShortcutsOpen(true)}
            >
              <KeyboardIcon />
            </button>
            <button
              type="button"
              className="icon-button"
              data-testid="settings-button"
              aria-label={strings.settings}
              title={strings.settings}
              onClick={() => setSettingsOpen(true)}
            >
              <SettingsIcon />
            </button>
          </div>
        </header>
        {banner !== null ? (
          <ErrorBanner banner={banner} onDismiss={state.banner !== null ? intents.dismissBanner : null} />
        ) : null}
        <RenderBacklogContext.Provider value={backlog}>
          <ApprovalContext.Provider value={approvalAnswers}>
            <Transcript
              state={shown}
              language={language}
              onRetry={replay === null ? intents.retry : () => undefined}
              scroller={scroller}
              content={content}
              stick={stick}
              setup={showsSetupCard(provider, shown) && replay === null ? <SetupCard onConfigured={onSettingsChanged} /> : null}
              onResend={replay === null && blocked === null ? (text) => void intents.send(text) : undefined}
              messages={replay === null ? intents.messages : undefined}
            />
          </ApprovalContext.Provider>
        </RenderBacklogContext.Provider>
        <footer className="composer-area">
          <ReplayControls language={language} controls={replayer} />
          <RetryLine retry={shown.retry} />
          <QueuedMessages
            queue={state.queue}
            runActive={stopEnabled}
            onCancel={intents.cancelQueued}
            onSend={intents.sendQueued}
          />
          <Composer
            canSend={canSend(state) && caughtUp && replay === null}
            canStop={stopEnabled}
            canQueue={stopEnabled}
            stopRequested={state.stopRequested}
            onSend={(text, attachments) => {
              const accepted = intents.send(text, attachments);
              if (accepted) scrollToBottom();
              return accepted;
            }}
            onQueue={intents.queue}
            onStop={stop}
            blockedReason={blocked === null ? null : strings.sendDisabled[blocked]}
            sendKey={sendKey}
            inputRef={composerInput}
            imageInput={modelFacts?.id === shownModel ? modelFacts.imageInput : true}
            modelName={shownModel}
          />
          <StatusLine
            facts={shownFacts}
            modelName={shownModel}
            usedModel={lastAnswerModel(state.transcript)}
            activity={state.lastSeq}
            contextWindow={modelFacts?.id === shownModel ? modelFacts.contextWindow : null}
            language={language}
          />
          <AnswerAnnouncer state={state} backlog={backlog} />
        </footer>
        {settingsOpen ? (
          <SettingsPanel
            initial={settings}
            onSaved={onSettingsChanged}
            onClose={() => setSettingsOpen(false)}
          />
        ) : null}
        {shortcutsOpen ? <ShortcutsSheet sendKey={sendKey} onClose={closeShortcuts} /> : null}
      </div>
      {inspectorOpen ? (
        <InspectorPanel
          language={language}
          conversationId={state.conversationId === "" ? null : state.conversationId}
          refreshKey={inspectorRefresh}
          replayError={replayer.error}
          onReplay={(logId) => replayer.start(state.conversationId, logId)}
          onClose={() => setInspectorOpen(false)}
        />
      ) : null}
    </div>
  );
}
