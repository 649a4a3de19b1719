// @vitest-environment jsdom
// The composer's keys and buttons: between runs Enter sends; during a run Send stays disabled, Enter (or Steer)
// queues a steering message and Alt+Enter (or Queue) a follow-up, the box clears at once, and a refused one
// comes back into it; Shift+Enter and an input method's Enter never send.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { StringsContext } from "../../i18n/I18n";
import { STRINGS } from "../../i18n/strings";
import { Composer } from "./Composer";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;
const onSend = vi.fn((_text: string) => true);
const onQueue = vi.fn((_kind: string, _text: string) => Promise.resolve(true));
const onStop = vi.fn();

beforeEach(() => {
  onSend.mockClear();
  onQueue.mockReset();
  onQueue.mockImplementation(() => Promise.resolve(true));
  container = document.createElement("div");
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

function render(running: boolean, blockedReason: string | null = null, sendKey: "enter" | "ctrlEnter" = "enter") {
  act(() => {
    root.render(
      <StringsContext.Provider value={STRINGS.en}>
        <Composer
          canSend={!running}
          canStop={running}
          canQueue={running}
          stopRequested={false}
          onSend={onSend}
          onQueue={onQueue}
          onStop={onStop}
          blockedReason={blockedReason}
          sendKey={sendKey}
        />
      </StringsContext.Provider>,
    );
  });
}

const input = () => container.querySelector<HTMLTextAreaElement>('[data-testid="composer-input"]') as HTMLTextAreaElement;
const button = (id: string) => container.querySelector<HTMLButtonElement>(`[data-testid="${id}"]`) as HTMLButtonElement;

function type(text: string) {
  const setValue = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")?.set;
  act(() => {
    setValue?.call(input(), text);
    input().dispatchEvent(new Event("input", { bubbles: true }));
  });
}

async function press(key: string, modifiers: { altKey?: boolean; shiftKey?: boolean; ctrlKey?: boolean } = {}) {
  await act(async () => {
    input().dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...modifiers }));
    await Promise.resolve();
  });
}

describe("the composer", () => {
  it("without a usable model keeps Send disabled with the reason beside it, and Enter keeps the text", async () => {
    render(false, "Connect a model first (above, or in Settings).");
    type("What is in Downloads?");
    await press("Enter");

    expect(onSend).not.toHaveBeenCalled();
    expect(input().value).toBe("What is in Downloads?");
    expect(button("send-button").disabled).toBe(true);
    expect(button("send-button").getAttribute("aria-describedby")).toBe("send-blocked-reason");
    expect(container.querySelector('[data-testid="send-blocked-reason"]')?.textContent).toBe(
      "Connect a model first (above, or in Settings).",
    );
  });

  it("sends on Enter between runs and offers no Steer or Queue", async () => {
    render(false);
    type("which PDFs?");
    await press("Enter");
    expect(onSend).toHaveBeenCalledWith("which PDFs?", []);
    expect(onQueue).not.toHaveBeenCalled();
    expect(button("steer-button").closest("[hidden]")).not.toBeNull();
  });

  it("during a run steers on Enter and queues a follow-up on Alt+Enter, Send staying disabled", async () => {
    render(true);
    expect(button("send-button").disabled).toBe(true);
    expect(input().placeholder).toContain("Enter steers");
    type("  only PDFs  ");
    await press("Enter");
    expect(onQueue).toHaveBeenLastCalledWith("steer", "only PDFs");
    expect(input().value).toBe("");

    type("then sum them");
    await press("Enter", { altKey: true });
    expect(onQueue).toHaveBeenLastCalledWith("follow_up", "then sum them");

    type("a new line");
    await press("Enter", { shiftKey: true });
    expect(onQueue).toHaveBeenCalledTimes(2);
    expect(onSend).not.toHaveBeenCalled();
  });

  it("with Ctrl+Enter as the send key, Enter leaves a new line and Ctrl+Enter sends or steers", async () => {
    render(false, null, "ctrlEnter");
    expect(input().placeholder).toContain("Ctrl+Enter to send");
    type("first line");
    await press("Enter");
    expect(onSend).not.toHaveBeenCalled();
    await press("Enter", { ctrlKey: true });
    expect(onSend).toHaveBeenCalledWith("first line", []);

    render(true, null, "ctrlEnter");
    type("only PDFs");
    await press("Enter");
    expect(onQueue).not.toHaveBeenCalled();
    await press("Enter", { ctrlKey: true });
    expect(onQueue).toHaveBeenLastCalledWith("steer", "only PDFs");
  });

  it("queues with the Steer and Queue buttons, which wait for some text", async () => {
    render(true);
    expect(button("steer-button").disabled).toBe(true);
    type("look in Documents");
    await act(async () => {
      button("follow-up-button").click();
      await Promise.resolve();
    });
    expect(onQueue).toHaveBeenLastCalledWith("follow_up", "look in Documents");
    type("and Desktop");
    await act(async () => {
      button("steer-button").click();
      await Promise.resolve();
    });
    expect(onQueue).toHaveBeenLastCalledWith("steer", "and Desktop");
  });

  it("puts a refused message back, before what was typed since", async () => {
    let refuse: (queued: boolean) => void = () => undefined;
    onQueue.mockImplementation(() => new Promise<boolean>((resolve) => (refuse = resolve)));
    render(true);
    type("only PDFs");
    await press("Enter");
    expect(input().value).toBe("");
    type("and Desktop");
    await act(async () => {
      refuse(false);
      await Promise.resolve();
    });
    expect(input().value).toBe("only PDFs\nand Desktop");
  });
});
