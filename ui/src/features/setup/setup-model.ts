// Pure helpers of the setup card: which preset it starts on, what Test connection is asked, what Done saves.
import type { PresetView, SettingsInput, SettingsView } from "../../ipc/wire";
import type { ConnectionTestInput, LocalServer, ModelEntry } from "../../ipc/models";

/** What the card's form holds. */
export interface SetupForm {
  preset: string;
  baseUrl: string;
  /** A key typed into the card; never filled from the backend. */
  apiKey: string;
  model: string;
}

/** The card starts on the first local server that answered, else on the saved preset, else the first preset. */
export function initialForm(view: SettingsView, local: readonly LocalServer[]): SetupForm {
  const found = local[0];
  if (found !== undefined) {
    return { preset: found.preset, baseUrl: found.baseUrl, apiKey: "", model: found.models[0]?.id ?? "" };
  }
  const preset = view.presets.find((candidate) => candidate.id === view.preset) ?? view.presets[0];
  return { preset: preset?.id ?? "", baseUrl: preset?.baseUrl ?? "", apiKey: "", model: "" };
}

/** Another preset: its base URL, no key typed, no model until its list comes. */
export function choosePreset(presets: readonly PresetView[], presetId: string): SetupForm {
  const preset = presets.find((candidate) => candidate.id === presetId);
  return { preset: presetId, baseUrl: preset?.baseUrl ?? "", apiKey: "", model: "" };
}

export function testInput(form: SetupForm, presets: readonly PresetView[]): ConnectionTestInput {
  const preset = presets.find((candidate) => candidate.id === form.preset);
  return { preset: form.preset, api: preset?.api ?? "", baseUrl: form.baseUrl.trim(), apiKey: form.apiKey.trim() };
}

/** The model the list offers first: the one typed or kept when the list has it, else the list's first. */
export function pickModel(current: string, models: readonly ModelEntry[]): string {
  if (models.some((model) => model.id === current)) return current;
  return models[0]?.id ?? current;
}

/** Done saves the preset, its API, the base URL and the model over the rest of the stored settings. */
export function settingsToSave(view: SettingsView, form: SetupForm): SettingsInput {
  const preset = view.presets.find((candidate) => candidate.id === form.preset);
  return {
    preset: form.preset,
    api: preset?.api ?? view.api,
    baseUrl: form.baseUrl.trim(),
    model: form.model.trim(),
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

/** Done is offered once a model is chosen and the key the provider needs is typed or stored. */
export function canFinish(view: SettingsView, form: SetupForm): boolean {
  if (form.model.trim() === "" || form.baseUrl.trim() === "") return false;
  const preset = view.presets.find((candidate) => candidate.id === form.preset);
  if (preset === undefined) return false;
  // A custom server may take no key; a hosted preset needs one.
  const keyNeeded = preset.needsKey && preset.id !== "custom";
  return !keyNeeded || form.apiKey.trim() !== "" || view.keysStored.includes(preset.id);
}
