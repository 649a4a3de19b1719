// "Steering and follow-ups" in the settings: how many steering messages, and how many follow-ups, one poll of the
// loop delivers (pi's modes: one at a time, or all at once). Read when the panel opens; each change is saved at
// once and answered with what the host keeps now (open conversations follow it from their next poll).
import { useStrings } from "../../i18n/I18n";
import { queueSettings, saveQueueSettings, type QueueMode, type QueueSettings } from "../../ipc/backend";
import { useStoredSection } from "./useStoredSection";
import { ErrorText } from "../../i18n/ErrorText";

const MODES: QueueMode[] = ["one_at_a_time", "all"];

export function QueueSection() {
  const strings = useStrings();
  const texts = strings.queueSettings;
  const section = useStoredSection(queueSettings, saveQueueSettings);
  const { value: settings, error, saving } = section;

  const save = (change: Partial<QueueSettings>) => {
    if (settings !== null) void section.save({ ...settings, ...change });
  };

  const select = (testId: string, label: string, value: QueueMode | undefined, onChange: (mode: QueueMode) => void) => (
    <label className="field">
      <span>{label}</span>
      <select
        data-testid={testId}
        value={value ?? "one_at_a_time"}
        disabled={settings === null || saving}
        onChange={(event) => onChange(event.target.value as QueueMode)}
      >
        {MODES.map((mode) => (
          <option key={mode} value={mode}>
            {texts.modes[mode]}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <section className="mcp-section queue-section" data-testid="queue-settings" aria-labelledby="queue-heading">
      <h3 id="queue-heading">{texts.title}</h3>
      <p className="settings-note">{texts.intro}</p>
      {error !== null ? (
        <p className="settings-error" role="alert">
          <ErrorText error={error} />
        </p>
      ) : null}
      <div className="field-row">
        {select("steering-mode", texts.steeringMode, settings?.steeringMode, (steeringMode) => save({ steeringMode }))}
        {select("follow-up-mode", texts.followUpMode, settings?.followUpMode, (followUpMode) => save({ followUpMode }))}
      </div>
    </section>
  );
}
