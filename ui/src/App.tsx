// The app shell: the UI language (settings, else the system's) and the chat screen.
import { useEffect, useState } from "react";

import { StringsContext } from "./i18n/I18n";
import { STRINGS, resolveLanguage } from "./i18n/strings";
import { getSettings } from "./ipc/backend";
import type { SettingsView } from "./ipc/wire";
import { ChatScreen } from "./features/chat/ChatScreen";

export function App() {
  const [settings, setSettings] = useState<SettingsView | null>(null);
  const language = resolveLanguage(settings?.language ?? "auto", navigator.languages ?? [navigator.language]);

  useEffect(() => {
    let current = true;
    getSettings().then(
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

  useEffect(() => {
    document.documentElement.lang = language === "zh" ? "zh-CN" : "en";
  }, [language]);

  return (
    <StringsContext.Provider value={STRINGS[language]}>
      <ChatScreen language={language} settings={settings} onSettingsChanged={setSettings} />
    </StringsContext.Provider>
  );
}
