// The empty conversation while no provider is usable: local servers that answer are offered first; otherwise
// choose a preset, paste a key or a base URL, Test connection, pick a model from the provider's list, Done.
import { useEffect, useState } from "react";

import { useStrings } from "../../i18n/I18n";
import { getSettings, saveSettings, setApiKey, toCommandError } from "../../ipc/backend";
import { detectLocalServers, testConnection, type ConnectionReport, type LocalServer, type ModelEntry } from "../../ipc/models";
import type { CommandError, SettingsView } from "../../ipc/wire";
import { canFinish, choosePreset, initialForm, pickModel, settingsToSave, testInput, type SetupForm } from "./setup-model";
import { ConnectionReportLine } from "./ConnectionReportLine";
import "./setup.css";
import { ErrorText } from "../../i18n/ErrorText";

interface SetupCardProps {
  /** The settings were saved and name a provider and a model. */
  onConfigured: (settings: SettingsView) => void;
}

export function SetupCard({ onConfigured }: SetupCardProps) {
  const strings = useStrings();
  const [view, setView] = useState<SettingsView | null>(null);
  const [local, setLocal] = useState<LocalServer[] | null>(null);
  const [form, setForm] = useState<SetupForm | null>(null);
  const [models, setModels] = useState<readonly ModelEntry[]>([]);
  const [report, setReport] = useState<ConnectionReport | null>(null);
  const [testing, setTesting] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<CommandError | null>(null);

  useEffect(() => {
    let current = true;
    Promise.all([getSettings(), detectLocalServers().catch(() => [] as LocalServer[])]).then(
      ([loaded, found]) => {
        if (!current) return;
        setView(loaded);
        setLocal(found);
        setForm(initialForm(loaded, found));
        setModels(found[0]?.models ?? []);
      },
      (failure: unknown) => {
        if (current) setError(toCommandError(failure));
      },
    );
    return () => {
      current = false;
    };
  }, []);

  const useLocal = (server: LocalServer) => {
    setReport(null);
    setModels(server.models);
    setForm({ preset: server.preset, baseUrl: server.baseUrl, apiKey: "", model: server.models[0]?.id ?? "" });
  };

  const test = () => {
    if (view === null || form === null) return;
    setTesting(true);
    setError(null);
    setReport(null);
    testConnection(testInput(form, view.presets)).then(
      (answer) => {
        setTesting(false);
        setReport(answer);
        setModels(answer.models);
        setForm((current) => (current === null ? current : { ...current, model: pickModel(current.model, answer.models) }));
      },
      (failure: unknown) => {
        setTesting(false);
        setError(toCommandError(failure));
      },
    );
  };

  const finish = () => {
    if (view === null || form === null) return;
    setSaving(true);
    setError(null);
    const key = form.apiKey.trim();
    // The key goes to the provider the card shows, then the settings name that provider.
    const storeKey = key === "" ? Promise.resolve(view) : setApiKey(key, form.preset);
    storeKey
      .then(() => saveSettings(settingsToSave(view, form)))
      .then(
        (saved) => {
          setSaving(false);
          onConfigured(saved);
        },
        (failure: unknown) => {
          setSaving(false);
          setError(toCommandError(failure));
        },
      );
  };

  const preset = view?.presets.find((candidate) => candidate.id === form?.preset);
  const keyStored = preset !== undefined && view !== null && view.keysStored.includes(preset.id);
  const noList = report !== null && report.ok && report.models.length === 0;

  return (
    <section className="setup-card" data-testid="setup-card" aria-labelledby="setup-title">
      <div className="welcome-mark" aria-hidden="true">
        π
      </div>
      <h2 id="setup-title">{strings.setup.title}</h2>
      <p className="empty-hint">{strings.setup.intro}</p>
      {local === null ? (
        <p className="setup-note" role="status">
          {strings.setup.searching}
        </p>
      ) : (
        local.map((server) => (
          <div className="setup-local" key={server.preset} data-testid="local-server" data-preset={server.preset}>
            <span>
              {strings.setup.localFound(
                strings.presetLabels[server.preset] ??
                  view?.presets.find((candidate) => candidate.id === server.preset)?.label ??
                  server.preset,
                server.models.length,
              )}
            </span>
            <button type="button" data-testid="use-local-server" onClick={() => useLocal(server)}>
              {strings.setup.useLocal}
            </button>
          </div>
        ))
      )}
      {view === null || form === null ? null : (
        <div className="setup-form">
          <label className="field">
            <span>{strings.setup.provider}</span>
            <select
              data-testid="setup-preset"
              value={form.preset}
              onChange={(event) => {
                setReport(null);
                setModels([]);
                setForm(choosePreset(view.presets, event.target.value));
              }}
            >
              {view.presets.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {strings.presetLabels[candidate.id] ?? candidate.label}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>{strings.setup.baseUrl}</span>
            <input
              data-testid="setup-base-url"
              type="url"
              spellCheck={false}
              value={form.baseUrl}
              onChange={(event) => setForm({ ...form, baseUrl: event.target.value })}
            />
          </label>
          {preset?.needsKey ? (
            <label className="field">
              <span>{strings.setup.apiKey}</span>
              <input
                data-testid="setup-api-key"
                type="password"
                autoComplete="off"
                spellCheck={false}
                placeholder={keyStored ? strings.setup.keyStored : preset.id === "custom" ? strings.setup.keyOptional : ""}
                value={form.apiKey}
                onChange={(event) => setForm({ ...form, apiKey: event.target.value })}
              />
            </label>
          ) : null}
          <div className="setup-actions">
            <button type="button" data-testid="test-connection" disabled={testing} onClick={test}>
              {testing ? strings.setup.testing : strings.setup.testConnection}
            </button>
            {report !== null ? <ConnectionReportLine report={report} /> : null}
          </div>
          {models.length > 0 ? (
            <label className="field">
              <span>{strings.setup.model}</span>
              <select data-testid="setup-model" value={form.model} onChange={(event) => setForm({ ...form, model: event.target.value })}>
                {models.map((model) => (
                  <option key={model.id} value={model.id} data-testid="setup-model-option">
                    {model.name}
                  </option>
                ))}
              </select>
            </label>
          ) : noList ? (
            <label className="field">
              <span>{strings.setup.modelId}</span>
              <input
                data-testid="setup-model-id"
                spellCheck={false}
                value={form.model}
                onChange={(event) => setForm({ ...form, model: event.target.value })}
              />
            </label>
          ) : null}
          <div className="setup-actions end">
            <button
              type="button"
              className="primary"
              data-testid="setup-done"
              disabled={saving || !canFinish(view, form)}
              onClick={finish}
            >
              {saving ? strings.setup.saving : strings.setup.done}
            </button>
          </div>
        </div>
      )}
      {error !== null ? (
        <div className="settings-error" data-testid="setup-error" role="alert">
          <ErrorText error={error} />
        </div>
      ) : null}
    </section>
  );
}
