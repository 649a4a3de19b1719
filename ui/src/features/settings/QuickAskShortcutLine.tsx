// Whether the quick-ask shortcut works: read again whenever the saved settings change (a save registers the
// shortcut anew), and said in words, with why not when another program holds it or it is no shortcut.
import { useEffect, useState } from "react";

import { useStrings } from "../../i18n/I18n";
import { quickAskShortcutStatus, type QuickAskShortcutStatus } from "../../ipc/quick-ask";
import type { SettingsView } from "../../ipc/wire";

export function QuickAskShortcutLine({ saved }: { saved: SettingsView | null }) {
  const strings = useStrings();
  const [status, setStatus] = useState<QuickAskShortcutStatus | null>(null);

  useEffect(() => {
    let current = true;
    quickAskShortcutStatus().then(
      (loaded) => {
        if (current) setStatus(loaded);
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [saved]);

  if (status === null) return null;
  return (
    <p
      className="settings-note"
      role={status.registered ? "status" : "alert"}
      data-testid="settings-quick-ask-status"
      data-registered={status.registered}
    >
      {strings.quickAskShortcutStatus(status.shortcut, status.registered, status.problem)}
    </p>
  );
}
