// "Connection" in the settings: the idle timeout of a stream, the time a response may take to start, the retries of
// a request that failed before any answer, the longest wait a server may ask for, and the proxy (the system's, none,
// or a URL). Read when the panel opens; saved on the button, and answered with what the host keeps (it checks the
// ranges and names the field at fault).
import { useState } from "react";

import { useStrings } from "../../i18n/I18n";
import { connectionSettings, saveConnectionSettings, type ConnectionSettings } from "../../ipc/connection";
import { useStoredSection } from "./useStoredSection";
import { ErrorText } from "../../i18n/ErrorText";

type ProxyMode = ConnectionSettings["proxy"]["mode"];
const PROXY_MODES: ProxyMode[] = ["system", "none", "manual"];

export function ConnectionSection() {
  const texts = useStrings().connectionSettings;
  const section = useStoredSection(connectionSettings, saveConnectionSettings);
  const { value: settings, error, saving } = section;
  const [proxyUrl, setProxyUrl] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  // The URL field starts from what is stored, until the user types.
  const shownUrl = proxyUrl ?? (settings?.proxy.mode === "manual" ? settings.proxy.url : "");

  const change = (update: Partial<ConnectionSettings>) => {
    if (settings === null) return;
    setSaved(false);
    section.edit({ ...settings, ...update });
  };

  const save = () => {
    if (settings === null) return;
    const proxy = settings.proxy.mode === "manual" ? { mode: "manual" as const, url: shownUrl.trim() } : settings.proxy;
    void section.save({ ...settings, proxy }).then(setSaved);
  };

  const number = (testId: string, label: string, value: number | undefined, onChange: (value: number) => void) => (
    <label className="field">
      <span>{label}</span>
      <input
        type="number"
        min={0}
        data-testid={testId}
        value={value ?? ""}
        disabled={settings === null || saving}
        onChange={(event) => onChange(Number(event.target.value))}
      />
    </label>
  );

  return (
    <section className="mcp-section connection-section" data-testid="connection-settings" aria-labelledby="connection-heading">
      <h3 id="connection-heading">{texts.title}</h3>
      <p className="settings-note">{texts.intro}</p>
      {error !== null ? (
        <p className="settings-error" role="alert">
          <ErrorText error={error} />
        </p>
      ) : null}
      <div className="field-row">
        {number("idle-timeout", texts.idleTimeout, settings?.idleTimeoutSeconds, (idleTimeoutSeconds) =>
          change({ idleTimeoutSeconds }),
        )}
        {number("head-timeout", texts.headTimeout, settings?.headTimeoutSeconds, (headTimeoutSeconds) =>
          change({ headTimeoutSeconds }),
        )}
      </div>
      <div className="field-row">
        {number("max-retries", texts.maxRetries, settings?.maxRetries, (maxRetries) => change({ maxRetries }))}
        {number("max-retry-delay", texts.maxRetryDelay, settings?.maxRetryDelaySeconds, (maxRetryDelaySeconds) =>
          change({ maxRetryDelaySeconds }),
        )}
      </div>
      <label className="field">
        <span>{texts.proxy}</span>
        <select
          data-testid="proxy-mode"
          value={settings?.proxy.mode ?? "system"}
          disabled={settings === null || saving}
          onChange={(event) => {
            const mode = event.target.value as ProxyMode;
            change({ proxy: mode === "manual" ? { mode, url: shownUrl } : { mode } });
          }}
        >
          {PROXY_MODES.map((mode) => (
            <option key={mode} value={mode}>
              {texts.proxyModes[mode]}
            </option>
          ))}
        </select>
      </label>
      {settings?.proxy.mode === "manual" ? (
        <label className="field">
          <span>{texts.proxyUrl}</span>
          <input
            data-testid="proxy-url"
            value={shownUrl}
            placeholder="socks5://127.0.0.1:1080"
            onChange={(event) => {
              setSaved(false);
              setProxyUrl(event.target.value);
            }}
          />
          <span className="field-hint" data-testid="proxy-password-note">
            {settings.proxyPasswordSet ? texts.proxyPasswordKept : texts.proxyPasswordHint}
          </span>
        </label>
      ) : null}
      <div className="field-row">
        <button type="button" className="ghost-button" data-testid="save-connection" disabled={settings === null || saving} onClick={save}>
          {texts.save}
        </button>
        {saved ? <span className="settings-note" role="status">{texts.saved}</span> : null}
      </div>
    </section>
  );
}
