// "Start Pi Desktop when I log in": the operating system keeps this choice (an autostart entry), not the settings
// form, so the box reads it when shown and changes it at once.
import { useEffect, useState } from "react";

import { ErrorText } from "../../i18n/ErrorText";
import { useStrings } from "../../i18n/I18n";
import { autostartEnabled, setAutostart, toCommandError } from "../../ipc/backend";
import type { CommandError } from "../../ipc/wire";

export function AutostartToggle() {
  const strings = useStrings();
  const [enabled, setEnabled] = useState<boolean | null>(null);
  const [error, setError] = useState<CommandError | null>(null);

  useEffect(() => {
    let current = true;
    autostartEnabled().then(
      (on) => {
        if (current) setEnabled(on);
      },
      (failure: unknown) => {
        if (current) setError(toCommandError(failure));
      },
    );
    return () => {
      current = false;
    };
  }, []);

  const change = (wanted: boolean) => {
    setError(null);
    setAutostart(wanted).then(setEnabled, (failure: unknown) => setError(toCommandError(failure)));
  };

  return (
    <>
      <label className="settings-toggle">
        <input
          type="checkbox"
          data-testid="settings-autostart"
          checked={enabled ?? false}
          disabled={enabled === null}
          onChange={(event) => change(event.target.checked)}
        />{" "}
        {strings.autostart}
      </label>
      {error === null ? null : (
        <p className="settings-note" role="alert" data-testid="settings-autostart-error">
          <ErrorText error={error} />
        </p>
      )}
    </>
  );
}
