// Pure helpers of the settings form.
import type { ProviderPreset, SettingsInput, SettingsView } from "../../ipc/wire";

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
  };
}

/** Picking a preset fills its API, base URL and model; the rest of the form stays. */
export function applyPreset(form: SettingsInput, presets: readonly ProviderPreset[], presetId: string): SettingsInput {
  const preset = presets.find((candidate) => candidate.id === presetId);
  if (preset === undefined) return { ...form, preset: presetId };
  return { ...form, preset: preset.id, api: preset.api, baseUrl: preset.baseUrl, model: preset.model };
}
