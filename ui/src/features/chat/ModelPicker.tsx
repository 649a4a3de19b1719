// The header's model picker: the models of the provider (its list, cached), the conversation's model selected;
// a provider without a list gets a field for the model id instead. A choice is kept with the conversation and
// used from its next turn.
import { useEffect, useState } from "react";

import { useStrings } from "../../i18n/I18n";
import { toCommandError } from "../../ipc/backend";
import { listModels, setConversationModel, type ModelEntry } from "../../ipc/models";
import "./model-picker.css";
import { commandErrorText, oneLine, problemText } from "../../i18n/error-text";

interface ModelPickerProps {
  conversationId: string;
  /** The model the conversation's session uses now. */
  model: string;
  /** A run is in progress: a change applies from the next turn. */
  runActive: boolean;
  onChanged: (model: string) => void;
}

export function ModelPicker({ conversationId, model, runActive, onChanged }: ModelPickerProps) {
  const strings = useStrings();
  const [models, setModels] = useState<readonly ModelEntry[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [noList, setNoList] = useState(false);
  const [typed, setTyped] = useState(model);
  // The field follows the session's model when that arrives or changes.
  useEffect(() => setTyped(model), [model]);

  useEffect(() => {
    let current = true;
    listModels(false).then(
      (view) => {
        if (!current) return;
        setModels(view.models);
        setNoList(view.origin === "none");
        setProblem(view.problem !== undefined && view.problem !== null ? oneLine(problemText(strings, view.problem)) : null);
      },
      (failure: unknown) => {
        if (!current) return;
        setModels([]);
        setProblem(oneLine(commandErrorText(strings, toCommandError(failure))));
      },
    );
    return () => {
      current = false;
    };
  }, []);

  const ids = (models ?? []).map((entry) => entry.id);
  // The conversation's model stays selectable even when the list lacks it (typed, or the list failed).
  const options = model === "" || ids.includes(model) ? (models ?? []) : [{ id: model, name: model }, ...(models ?? [])];

  const choose = (next: string) => {
    if (next.trim() === "" || next === model || conversationId === "") return;
    setConversationModel(conversationId, next).then(
      () => {
        setProblem(null);
        onChanged(next);
      },
      (failure: unknown) => setProblem(oneLine(commandErrorText(strings, toCommandError(failure)))),
    );
  };

  if (noList) {
    return (
      <label className="model-picker" title={problem ?? strings.modelPicker}>
        <input
          data-testid="model-picker"
          aria-label={strings.modelPicker}
          spellCheck={false}
          value={typed}
          disabled={conversationId === ""}
          onChange={(event) => setTyped(event.target.value)}
          onBlur={() => choose(typed.trim())}
          onKeyDown={(event) => {
            if (event.key === "Enter") choose(typed.trim());
          }}
        />
      </label>
    );
  }

  return (
    <label className="model-picker" title={problem ?? (runActive ? strings.modelNextTurn : strings.modelPicker)}>
      <select
        data-testid="model-picker"
        aria-label={strings.modelPicker}
        value={model}
        disabled={conversationId === ""}
        onChange={(event) => choose(event.target.value)}
      >
        {models === null && model === "" ? <option value="">{strings.modelPickerLoading}</option> : null}
        {options.map((entry) => (
          <option key={entry.id} value={entry.id} data-testid="model-option">
            {entry.name}
          </option>
        ))}
      </select>
    </label>
  );
}
