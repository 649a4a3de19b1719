// Pure helpers of the settings form.
import type { PresetView, SettingsInput, SettingsView } from "../../ipc/wire";

/** The editable part of a settings view (what save_settings takes). */
export function settingsInput(view: SettingsView): SettingsInput {
  return {
    preset: view.preset,
    api: view.api,
    baseUrl: view.baseUrl,
    model: view.model,
    thinkingLevel: view.thinkingLevel,
    systemPrompt: view.systemPrompt,
    language: view.language,
    theme: view.theme,
    sendKey: view.sendKey,
    notifications: view.notifications,
    closeToTray: view.closeToTray,
    startMinimized: view.startMinimized,
    quickAskShortcut: view.quickAskShortcut,
  };
}

/** What the API key section shows: the key field, the offer of the private key file, or the field plus a note. */
export type KeySection = "keychain" | "offerFile" | "file";

/** The key field works only once keys have somewhere to go; without a keychain the user must accept the file. */
export function keySection(view: Pick<SettingsView, "keyStorage">): KeySection {
  switch (view.keyStorage) {
    case "keychain":
      return "keychain";
    case "file":
      return "file";
    case "unavailable":
      return "offerFile";
  }
}

/** Picking a preset fills its API, base URL and model; the rest of the form stays. */
export function applyPreset(form: SettingsInput, presets: readonly PresetView[], presetId: string): SettingsInput {
  const preset = presets.find((candidate) => candidate.id === presetId);
  if (preset === undefined) return { ...form, preset: presetId };
  return { ...form, preset: preset.id, api: preset.api, baseUrl: preset.baseUrl, model: preset.model };
}

/**
 * Whether a key is stored for the provider the form shows (not the saved one): a blank form preset means the
 * saved preset, whose status the view carries.
 */
export function keyStoredFor(view: Pick<SettingsView, "apiKeySet" | "keysStored">, presetId: string): boolean {
  return presetId === "" ? view.apiKeySet : view.keysStored.includes(presetId);
}
