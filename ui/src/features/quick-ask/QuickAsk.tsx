// The quick-ask window's page: a composer (Enter asks, Shift+Enter is a new line, Esc hides the window), the
// answer as it streams, and "Open in the main window", which continues the conversation there. It follows the
// settings' language and theme like the main window, and asks nothing else of the backend.
import { useCallback, useEffect, useReducer, useRef, useState, type KeyboardEvent } from "react";

import { StringsContext } from "../../i18n/I18n";
import { STRINGS, resolveLanguage } from "../../i18n/strings";
import { getSettings, subscribe, toCommandError } from "../../ipc/backend";
import { hideQuickAsk, openInMainWindow, quickAsk } from "../../ipc/quick-ask";
import type { SettingsView } from "../../ipc/wire";
import { useTheme } from "../../theme/theme";
import { envelopeInbox } from "../chat/envelope-inbox";
import { initialQuickAsk, quickAskReducer } from "./quick-ask-state";
import "./quick-ask.css";

export function QuickAsk() {
  const [settings, setSettings] = useState<SettingsView | null>(null);
  const [state, dispatch] = useReducer(quickAskReducer, initialQuickAsk);
  const [draft, setDraft] = useState("");
  const input = useRef<HTMLTextAreaElement>(null);
  const language = resolveLanguage(settings?.language ?? "auto", navigator.languages ?? [navigator.language]);
  const strings = STRINGS[language].quickAsk;
  useTheme(settings?.theme ?? null);

  useEffect(() => {
    let current = true;
    getSettings().then(
      (loaded) => {
        if (current) setSettings(loaded);
      },
      () => undefined,
    );
    subscribe(envelopeInbox((envelopes) => current && dispatch({ type: "envelopes", envelopes }))).catch(
      (error: unknown) => current && dispatch({ type: "refused", error: toCommandError(error) }),
    );
    input.current?.focus();
    return () => {
      current = false;
    };
  }, []);

  const ask = useCallback(() => {
    const question = draft.trim();
    if (question === "" || state.phase === "asking" || state.phase === "answering") return;
    dispatch({ type: "asked", question });
    setDraft("");
    quickAsk(question).then(
      (accepted) => dispatch({ type: "accepted", accepted }),
      (error: unknown) => dispatch({ type: "refused", error: toCommandError(error) }),
    );
  }, [draft, state.phase]);

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing && event.keyCode !== 229) {
      event.preventDefault();
      ask();
    }
  };

  // Esc hides the window from anywhere in it; the next shortcut press brings it back as it was.
  useEffect(() => {
    const onEscape = (event: globalThis.KeyboardEvent) => {
      if (event.key === "Escape" && !event.isComposing) void hideQuickAsk().catch(() => undefined);
    };
    window.addEventListener("keydown", onEscape);
    return () => window.removeEventListener("keydown", onEscape);
  }, []);

  const conversationId = state.conversationId;
  return (
    <StringsContext.Provider value={STRINGS[language]}>
      <main className="quick-ask" data-testid="quick-ask" data-phase={state.phase}>
        <label className="quick-ask-label" htmlFor="quick-ask-input">
          {strings.title}
        </label>
        <textarea
          id="quick-ask-input"
          ref={input}
          className="quick-ask-input"
          data-testid="quick-ask-input"
          rows={2}
          placeholder={strings.placeholder}
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
        />
        {state.question === "" ? null : (
          <section className="quick-ask-result" aria-live="polite" aria-busy={state.phase !== "done"}>
            <p className="quick-ask-question" data-testid="quick-ask-question">
              {state.question}
            </p>
            <div className="quick-ask-answer" data-testid="quick-ask-answer" data-state={state.phase}>
              {state.answer === "" && state.phase !== "failed" ? strings.waiting : state.answer.trim()}
            </div>
            {state.error === null ? null : (
              <p className="quick-ask-error" role="alert" data-testid="quick-ask-error">
                {strings.failed(state.error)}
              </p>
            )}
          </section>
        )}
        <div className="quick-ask-actions">
          <span className="quick-ask-hint">{strings.hint}</span>
          <button
            type="button"
            data-testid="quick-ask-open-main"
            disabled={conversationId === null}
            onClick={() => {
              if (conversationId === null) return;
              openInMainWindow(conversationId).then(
                () => dispatch({ type: "reset" }),
                (error: unknown) => dispatch({ type: "refused", error: toCommandError(error) }),
              );
            }}
          >
            {strings.openInMainWindow}
          </button>
        </div>
      </main>
    </StringsContext.Provider>
  );
}
