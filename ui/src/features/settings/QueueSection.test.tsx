// @vitest-environment jsdom
// "Steering and follow-ups" against a mocked ipc/backend: both modes show what the host keeps, a change is saved
// at once (the other mode as it was) and shows what the host answers, a failed save keeps the stored value and
// says why, and the texts are there in Chinese.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { StringsContext } from "../../i18n/I18n";
import { STRINGS } from "../../i18n/strings";

const ipc = vi.hoisted(() => ({
  queueSettings: vi.fn(),
  saveQueueSettings: vi.fn(),
  toCommandError: (error: unknown) => error,
}));
vi.mock("../../ipc/backend", () => ipc);

import { QueueSection } from "./QueueSection";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;

beforeEach(() => {
  for (const mock of Object.values(ipc)) if ("mockReset" in mock) mock.mockReset();
  container = document.createElement("div");
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

async function settle() {
  await act(async () => {
    await Promise.resolve();
  });
}

async function render(language: "en" | "zh" = "en") {
  ipc.queueSettings.mockResolvedValue({ steeringMode: "one_at_a_time", followUpMode: "all" });
  await act(async () => {
    root.render(
      <StringsContext.Provider value={STRINGS[language]}>
        <QueueSection />
      </StringsContext.Provider>,
    );
  });
  await settle();
}

const select = (id: string) => container.querySelector<HTMLSelectElement>(`[data-testid="${id}"]`);

async function choose(id: string, value: string) {
  const element = select(id);
  if (element === null) throw new Error(`no ${id}`);
  await act(async () => {
    element.value = value;
    element.dispatchEvent(new Event("change", { bubbles: true }));
  });
  await settle();
}

describe("Steering and follow-ups in the settings", () => {
  it("shows the stored modes and saves a change with the other mode as it was", async () => {
    await render();
    expect(container.querySelector("h3")?.textContent).toBe("Steering and follow-ups");
    expect(select("steering-mode")?.value).toBe("one_at_a_time");
    expect(select("follow-up-mode")?.value).toBe("all");
    expect([...(select("steering-mode")?.options ?? [])].map((option) => option.textContent)).toEqual([
      "One at a time",
      "All at once",
    ]);

    ipc.saveQueueSettings.mockResolvedValue({ steeringMode: "all", followUpMode: "all" });
    await choose("steering-mode", "all");

    expect(ipc.saveQueueSettings).toHaveBeenCalledWith({ steeringMode: "all", followUpMode: "all" });
    expect(select("steering-mode")?.value).toBe("all");
  });

  it("keeps the stored mode and says why when saving fails", async () => {
    await render();
    ipc.saveQueueSettings.mockRejectedValue({ kind: "storage", code: "settings_not_saved", detail: "cannot access settings file" });

    await choose("follow-up-mode", "one_at_a_time");

    expect(select("follow-up-mode")?.value).toBe("all");
    expect(container.querySelector('[role="alert"]')?.textContent).toBe(
      `${STRINGS.en.errorCodes.settings_not_saved}cannot access settings file`,
    );
  });

  it("speaks Chinese", async () => {
    await render("zh");
    expect(container.querySelector("h3")?.textContent).toBe("引导与后续消息");
    expect(select("steering-mode")?.selectedOptions[0]?.textContent).toBe("一次一条");
    expect(select("follow-up-mode")?.selectedOptions[0]?.textContent).toBe("全部一起");
  });
});
