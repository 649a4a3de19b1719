// The app shell: the UI language (settings, else the system's), the theme, whether a provider is usable, and the
// chat screen.
import { useCallback, useEffect, useState } from "react";

import { StringsContext } from "./i18n/I18n";
import { STRINGS, resolveLanguage } from "./i18n/strings";
import { getSettings } from "./ipc/backend";
import { arrived, earlyOr } from "./ipc/early";
import { providerStatus, type ProviderStatus } from "./ipc/models";
import type { SettingsView } from "./ipc/wire";
import type { ProviderState } from "./state/selectors";
import { ChatScreen } from "./features/chat/ChatScreen";
import { useTheme } from "./theme/theme";

export function App() {
  // What came before the first render is in the first frame (ipc/early); the effects below take the same answers.
  const [settings, setSettings] = useState<SettingsView | null>(() => arrived<SettingsView>("settings"));
  const [provider, setProvider] = useState<ProviderState>(
    () => arrived<ProviderStatus>("providerStatus") ?? { status: "checking" },
  );
  // "auto" follows the language the host writes in (its locale), so the window and the host never disagree;
  // before the settings arrive, the browser's languages.
  const systemLanguages =
    typeof settings?.systemLanguage === "string" ? [settings.systemLanguage] : (navigator.languages ?? [navigator.language]);
  const language = resolveLanguage(settings?.language ?? "auto", systemLanguages);

  useEffect(() => {
    let current = true;
    earlyOr("settings", getSettings).then(
      (loaded) => {
        if (current) setSettings(loaded);
      },
      // Without settings the UI follows the system language; the settings panel shows the error.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, []);

  // Asked again after every settings change; a backend that cannot say leaves Send to the prompt's own answer.
  const checkProvider = useCallback(() => {
    earlyOr("providerStatus", providerStatus).then(setProvider, () => setProvider({ status: "unknown" }));
  }, []);
  useEffect(checkProvider, [checkProvider]);
  const settingsChanged = useCallback(
    (changed: SettingsView) => {
      setSettings(changed);
      checkProvider();
    },
    [checkProvider],
  );

  useTheme(settings?.theme ?? null);

  useEffect(() => {
    document.documentElement.lang = language === "zh" ? "zh-CN" : "en";
  }, [language]);

  return (
    <StringsContext.Provider value={STRINGS[language]}>
      <ChatScreen language={language} settings={settings} provider={provider} onSettingsChanged={settingsChanged}
        sendKey={settings?.sendKey ?? "enter"}
      />
    </StringsContext.Provider>
  );
}
