// Settings: provider preset, base URL, model, thinking level, API key (write-only), system prompt, language,
// theme and send key;
// below them the MCP servers ("Tools & servers"), the approvals (built-in tools asking, conversation grants) and
// the About section (version, log folder).
// The key field is never filled from the backend: it only says whether a key is stored for the provider the form
// shows, and a key saved goes to that provider, saved or not. Test connection reaches the form's provider.
import { useEffect, useRef, useState, type FormEvent } from "react";

import { useFocusTrap } from "../../a11y/useFocusTrap";
import { useStrings } from "../../i18n/I18n";
import {
  acceptKeyFileFallback,
  deleteApiKey,
  getSettings,
  saveSettings,
  setApiKey,
  toCommandError,
} from "../../ipc/backend";
import { testConnection, type ConnectionReport } from "../../ipc/models";
import type {
  CommandError,
  LanguageSetting,
  SendKeySetting,
  SettingsInput,
  SettingsView,
  ThemeSetting,
} from "../../ipc/wire";
import { CloseIcon } from "../chat/icons";
import { ConnectionReportLine } from "../setup/ConnectionReportLine";
import { AboutSection } from "./AboutSection";
import { AutostartToggle } from "./AutostartToggle";
import { QuickAskShortcutLine } from "./QuickAskShortcutLine";
import { ApprovalSection } from "./ApprovalSection";
import { ConnectionSection } from "./ConnectionSection";
import { McpSection } from "./McpSection";
import { QueueSection } from "./QueueSection";
import { applyPreset, keySection, keyStoredFor, settingsInput } from "./settings-form";
import { ErrorText } from "../../i18n/ErrorText";

interface SettingsPanelProps {
  initial: SettingsView | null;
  onSaved: (settings: SettingsView) => void;
  onClose: () => void;
}

const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"];
const LANGUAGES: LanguageSetting[] = ["auto", "en", "zh"];
const THEMES: ThemeSetting[] = ["system", "light", "dark"];
const SEND_KEYS: SendKeySetting[] = ["enter", "ctrlEnter"];

export function SettingsPanel({ initial, onSaved, onClose }: SettingsPanelProps) {
  const strings = useStrings();
  const [view, setView] = useState<SettingsView | null>(initial);
  const [form, setForm] = useState<SettingsInput | null>(initial === null ? null : settingsInput(initial));
  const [keyDraft, setKeyDraft] = useState("");
  const [error, setError] = useState<CommandError | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const [report, setReport] = useState<ConnectionReport | null>(null);
  const [testing, setTesting] = useState(false);
  const panel = useRef<HTMLDivElement>(null);
  useFocusTrap(panel);

  useEffect(() => {
    let current = true;
    getSettings().then(
      (loaded) => {
        if (!current) return;
        setView(loaded);
        setForm(settingsInput(loaded));
      },
      (failure: unknown) => {
        if (current) setError(toCommandError(failure));
      },
    );
    return () => {
      current = false;
    };
  }, []);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape" && !event.isComposing) onClose();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [onClose]);

  /** `keepForm`: a key action, which leaves what the form holds (and has not saved) as it is. */
  const run = (action: Promise<SettingsView>, after?: () => void, keepForm = false) => {
    setBusy(true);
    setError(null);
    setSaved(false);
    action.then(
      (updated) => {
        setBusy(false);
        setView(updated);
        if (!keepForm) setForm(settingsInput(updated));
        onSaved(updated);
        setSaved(true);
        after?.();
      },
      (failure: unknown) => {
        setBusy(false);
        setError(toCommandError(failure));
      },
    );
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (form !== null) run(saveSettings(form));
  };

  const update = (patch: Partial<SettingsInput>) => {
    setSaved(false);
    setForm((current) => (current === null ? current : { ...current, ...patch }));
  };

  const test = () => {
    if (form === null) return;
    setTesting(true);
    setReport(null);
    setError(null);
    testConnection({ preset: form.preset, api: form.api, baseUrl: form.baseUrl, apiKey: keyDraft.trim() }).then(
      (answer) => {
        setTesting(false);
        setReport(answer);
      },
      (failure: unknown) => {
        setTesting(false);
        setError(toCommandError(failure));
      },
    );
  };

  const preset = view?.presets.find((candidate) => candidate.id === form?.preset);
  const needsKey = preset?.needsKey ?? true;
  const keySet = view !== null && form !== null && keyStoredFor(view, form.preset);
  const section = view === null ? "keychain" : keySection(view);

  return (
    <div className="settings-backdrop" onClick={onClose}>
      <div
        className="settings-panel"
        data-testid="settings-panel"
        role="dialog"
        aria-modal="true"
        aria-label={strings.settingsTitle}
        tabIndex={-1}
        ref={panel}
        onClick={(event) => event.stopPropagation()}
      >
        <div className="settings-head">
          <h2>{strings.settingsTitle}</h2>
          <button type="button" className="icon-button" aria-label={strings.close} title={strings.close} onClick={onClose}>
            <CloseIcon />
          </button>
        </div>
        {error !== null ? (
          <div className="settings-error" data-testid="settings-error" role="alert">
            <ErrorText error={error} />
          </div>
        ) : null}
        {form === null || view === null ? (
          <p className="settings-loading">{strings.loading}</p>
        ) : (
          <form className="settings-form" onSubmit={onSubmit}>
            <label className="field">
              <span>{strings.provider}</span>
              <select
                data-testid="settings-preset"
                value={form.preset}
                onChange={(event) => setForm(applyPreset(form, view.presets, event.target.value))}
              >
                {view.presets.map((candidate) => (
                  <option key={candidate.id} value={candidate.id}>
                    {strings.presetLabels[candidate.id] ?? candidate.label}
                  </option>
                ))}
                {view.presets.some((candidate) => candidate.id === form.preset) ? null : (
                  <option value={form.preset}>{form.preset || strings.choosePreset}</option>
                )}
              </select>
            </label>
            <label className="field">
              <span>{strings.baseUrl}</span>
              <input
                data-testid="settings-base-url"
                type="url"
                spellCheck={false}
                value={form.baseUrl}
                onChange={(event) => update({ baseUrl: event.target.value })}
              />
            </label>
            <div className="field-row">
              <label className="field">
                <span>{strings.model}</span>
                <input
                  data-testid="settings-model"
                  spellCheck={false}
                  value={form.model}
                  onChange={(event) => update({ model: event.target.value })}
                />
              </label>
              <label className="field">
                <span>{strings.thinkingLevel}</span>
                <select value={form.thinkingLevel} onChange={(event) => update({ thinkingLevel: event.target.value })}>
                  {(THINKING_LEVELS.includes(form.thinkingLevel) ? THINKING_LEVELS : [form.thinkingLevel, ...THINKING_LEVELS]).map(
                    (level) => (
                      <option key={level} value={level}>
                        {strings.thinkingLevels[level] ?? level}
                      </option>
                    ),
                  )}
                </select>
              </label>
            </div>
            <fieldset className="field key-field">
              <legend>{strings.apiKey}</legend>
              <div
                className="key-status"
                data-testid="api-key-status"
                data-set={keySet ? "true" : "false"}
                data-preset={form.preset}
              >
                <span className={`key-dot${keySet ? " set" : ""}`} aria-hidden="true" />
                {preset !== undefined ? `${strings.keyFor(strings.presetLabels[preset.id] ?? preset.label)}: ` : null}
                {keySet ? strings.keySet : needsKey ? strings.keyNotSet : strings.keyNotNeeded}
              </div>
              {section === "offerFile" ? (
                <div className="key-storage-offer" data-testid="key-storage-offer">
                  <p className="settings-note" role="status">
                    {strings.keychainUnavailable}
                  </p>
                  <button
                    type="button"
                    data-testid="accept-key-file"
                    disabled={busy}
                    onClick={() => run(acceptKeyFileFallback())}
                  >
                    {strings.acceptKeyFile}
                  </button>
                </div>
              ) : null}
              {section === "file" ? (
                <p className="settings-note" data-testid="key-storage-file">
                  {strings.keysInFile}
                </p>
              ) : null}
              <div className="key-row">
                <input
                  data-testid="settings-api-key"
                  type="password"
                  autoComplete="off"
                  spellCheck={false}
                  placeholder={strings.keyPlaceholder}
                  disabled={section === "offerFile"}
                  value={keyDraft}
                  onChange={(event) => setKeyDraft(event.target.value)}
                />
                <button
                  type="button"
                  disabled={busy || section === "offerFile" || keyDraft.trim() === ""}
                  onClick={() => run(setApiKey(keyDraft.trim(), form.preset || undefined), () => setKeyDraft(""), true)}
                >
                  {keySet ? strings.replaceKey : strings.saveKey}
                </button>
                {keySet ? (
                  <button
                    type="button"
                    className="danger"
                    disabled={busy}
                    onClick={() => run(deleteApiKey(form.preset || undefined), undefined, true)}
                  >
                    {strings.deleteKey}
                  </button>
                ) : null}
              </div>
            </fieldset>
            <div className="setup-actions">
              <button type="button" data-testid="test-connection" disabled={testing} onClick={test}>
                {testing ? strings.setup.testing : strings.setup.testConnection}
              </button>
              {report !== null ? <ConnectionReportLine report={report} /> : null}
            </div>
            <label className="field">
              <span>{strings.systemPrompt}</span>
              <textarea
                rows={5}
                value={form.systemPrompt}
                onChange={(event) => update({ systemPrompt: event.target.value })}
              />
            </label>
            {/* One row, so the sections below keep their place. */}
            <div className="field-row">
              <label className="field">
                <span>{strings.language}</span>
                <select
                  data-testid="settings-language"
                  value={form.language}
                  onChange={(event) => update({ language: event.target.value as LanguageSetting })}
                >
                  {LANGUAGES.map((language) => (
                    <option key={language} value={language}>
                      {strings.languageNames[language]}
                    </option>
                  ))}
                </select>
              </label>
              <label className="field">
                <span>{strings.theme}</span>
                <select
                  data-testid="settings-theme"
                  value={form.theme}
                  onChange={(event) => update({ theme: event.target.value as ThemeSetting })}
                >
                  {THEMES.map((theme) => (
                    <option key={theme} value={theme}>
                      {strings.themeNames[theme]}
                    </option>
                  ))}
                </select>
              </label>
              <label className="field">
                <span>{strings.sendKey}</span>
                <select
                  data-testid="settings-send-key"
                  value={form.sendKey}
                  onChange={(event) => update({ sendKey: event.target.value as SendKeySetting })}
                >
                  {SEND_KEYS.map((key) => (
                    <option key={key} value={key}>
                      {strings.sendKeyNames[key]}
                    </option>
                  ))}
                </select>
              </label>
            </div>
            <label className="settings-toggle">
              <input
                type="checkbox"
                data-testid="settings-notifications"
                checked={form.notifications}
                onChange={(event) => update({ notifications: event.target.checked })}
              />{" "}
              {strings.notifications}
            </label>
            <label className="settings-toggle">
              <input
                type="checkbox"
                data-testid="settings-close-to-tray"
                checked={form.closeToTray}
                onChange={(event) => update({ closeToTray: event.target.checked })}
              />{" "}
              {strings.closeToTray}
            </label>
            <label className="settings-toggle">
              <input
                type="checkbox"
                data-testid="settings-start-minimized"
                checked={form.startMinimized}
                onChange={(event) => update({ startMinimized: event.target.checked })}
              />{" "}
              {strings.startMinimized}
            </label>
            <AutostartToggle />
            <label className="field">
              <span>{strings.quickAskShortcut}</span>
              <input
                data-testid="settings-quick-ask-shortcut"
                value={form.quickAskShortcut}
                placeholder="Ctrl+Alt+Space"
                spellCheck={false}
                onChange={(event) => update({ quickAskShortcut: event.target.value })}
              />
            </label>
            <QuickAskShortcutLine saved={view} />
            <div className="settings-actions">
              <span className="settings-note">{saved ? strings.saved : strings.appliesNextRun}</span>
              <button type="submit" className="primary" data-testid="settings-save" disabled={busy}>
                {strings.save}
              </button>
            </div>
          </form>
        )}
        <McpSection />
        <ApprovalSection />
        <QueueSection />
        <ConnectionSection />
        <AboutSection />
      </div>
    </div>
  );
}
