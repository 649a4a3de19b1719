// @vitest-environment jsdom
// The header's model picker against a mocked IPC: the provider's models as options with the conversation's model
// selected (kept even when the list lacks it), and a choice goes to that conversation.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { StringsContext } from "../../i18n/I18n";
import { STRINGS } from "../../i18n/strings";
import type { ModelEntry } from "../../ipc/models";

const models = vi.hoisted(() => ({ listModels: vi.fn(), setConversationModel: vi.fn() }));
vi.mock("../../ipc/models", () => models);
vi.mock("../../ipc/backend", () => ({ toCommandError: (error: unknown) => error }));

import { ModelPicker } from "./ModelPicker";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function model(id: string): ModelEntry {
  return { id, name: id, contextWindow: 8192, maxOutputTokens: 4096, imageInput: false, facts: "default" };
}

let container: HTMLDivElement;
let root: Root;
const onChanged = vi.fn();

beforeEach(() => {
  models.listModels.mockReset();
  models.setConversationModel.mockReset();
  onChanged.mockReset();
  container = document.createElement("div");
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

async function render(current: string) {
  await act(async () => {
    root.render(
      <StringsContext.Provider value={STRINGS.en}>
        <ModelPicker conversationId="c-1" model={current} runActive={false} onChanged={onChanged} />
      </StringsContext.Provider>,
    );
  });
  await act(async () => {
    await Promise.resolve();
  });
}

const picker = () => container.querySelector<HTMLSelectElement>('[data-testid="model-picker"]') as HTMLSelectElement;
const optionIds = () => [...container.querySelectorAll<HTMLOptionElement>('[data-testid="model-option"]')].map((o) => o.value);

describe("model picker", () => {
  it("offers the provider's models, selects the conversation's, and a choice goes to that conversation", async () => {
    models.listModels.mockResolvedValue({ models: [model("qwen3:8b"), model("llama3.2")], origin: "server" });
    models.setConversationModel.mockResolvedValue(null);
    await render("qwen3:8b");

    expect(models.listModels).toHaveBeenCalledWith(false);
    expect(optionIds()).toEqual(["qwen3:8b", "llama3.2"]);
    expect(picker().value).toBe("qwen3:8b");

    await act(async () => {
      Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, "value")?.set?.call(picker(), "llama3.2");
      picker().dispatchEvent(new Event("change", { bubbles: true }));
    });
    await act(async () => {
      await Promise.resolve();
    });

    expect(models.setConversationModel).toHaveBeenCalledWith("c-1", "llama3.2");
    expect(onChanged).toHaveBeenCalledWith("llama3.2");
  });

  it("offers a field for the model id when the provider has no list, and Enter chooses it", async () => {
    models.listModels.mockResolvedValue({
      models: [],
      origin: "none",
      problem: { kind: "no_model_list", message: "This server lists no models." },
    });
    models.setConversationModel.mockResolvedValue(null);
    await render("my-finetune");

    const field = container.querySelector<HTMLInputElement>('[data-testid="model-picker"]') as HTMLInputElement;
    expect(field.tagName).toBe("INPUT");
    expect(field.value).toBe("my-finetune");
    await act(async () => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set?.call(field, " my-finetune-2 ");
      field.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await act(async () => {
      field.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    });
    await act(async () => {
      await Promise.resolve();
    });

    expect(models.setConversationModel).toHaveBeenCalledWith("c-1", "my-finetune-2");
    expect(onChanged).toHaveBeenCalledWith("my-finetune-2");
  });

  it("keeps the conversation's model selectable when the list lacks it", async () => {
    models.listModels.mockResolvedValue({ models: [model("llama3.2")], origin: "cache" });
    await render("my-finetune");

    expect(optionIds()).toEqual(["my-finetune", "llama3.2"]);
    expect(picker().value).toBe("my-finetune");
  });
});
