// @vitest-environment jsdom
// The approval card offers the answers the question names: all of them for an MCP tool, no "always" for a
// built-in tool (whose server is the app itself), and without the list (an older host) every answer but
// "always allow this server" for a tool that may destroy data.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { StringsContext } from "../../i18n/I18n";
import { STRINGS } from "../../i18n/strings";
import type { ApprovalRequest } from "../../ipc/wire";
import { ApprovalPrompt } from "./ApprovalPrompt";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;

beforeEach(() => {
  container = document.createElement("div");
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

const mcpRequest: ApprovalRequest = {
  requestId: 1,
  toolCallId: "call_1",
  server: "files",
  tool: "write_file",
  builtIn: false,
  offered: ["allow_once", "allow_conversation", "allow_tool_always", "allow_server_always", "deny", "deny_and_stop"],
  arguments: { path: "notes.txt" },
  readOnlyClaim: false,
  destructiveClaim: false,
};

const builtInRequest: ApprovalRequest = {
  requestId: 2,
  toolCallId: "call_2",
  server: "",
  tool: "list_folder",
  builtIn: true,
  offered: ["allow_once", "allow_conversation", "deny", "deny_and_stop"],
  arguments: { folder: "Documents" },
  readOnlyClaim: false,
  destructiveClaim: false,
};

function render(request: ApprovalRequest, onAnswer = vi.fn(), language: "en" | "zh" = "en") {
  act(() => {
    root.render(
      <StringsContext.Provider value={STRINGS[language]}>
        <ApprovalPrompt view={{ request, status: "waiting" }} onAnswer={onAnswer} />
      </StringsContext.Provider>,
    );
  });
  return onAnswer;
}

const buttons = () =>
  [...container.querySelectorAll<HTMLButtonElement>("[data-testid='approval-prompt'] button")].map((button) =>
    button.getAttribute("data-testid"),
  );

describe("approval card", () => {
  it("offers every answer for an MCP tool and names its server", () => {
    render(mcpRequest);

    expect(buttons()).toEqual([
      "approve-once",
      "approve-conversation",
      "approve-tool-always",
      "approve-server-always",
      "deny",
      "deny-stop",
    ]);
    expect(container.querySelector(".approval-title")?.textContent).toBe("Run write_file from the MCP server “files”?");
  });

  it("offers no always answer for a built-in tool and names the app as its server", () => {
    const onAnswer = render(builtInRequest);

    expect(buttons()).toEqual(["approve-once", "approve-conversation", "deny", "deny-stop"]);
    expect(container.querySelector(".approval-title")?.textContent).toBe("Run list_folder, a built-in tool of Pi Desktop?");
    act(() => container.querySelector<HTMLButtonElement>("[data-testid='approve-conversation']")?.click());
    expect(onAnswer).toHaveBeenCalledWith({ decision: "allow_conversation" });
  });

  it("names the app in Chinese", () => {
    render(builtInRequest, vi.fn(), "zh");

    expect(container.querySelector(".approval-title")?.textContent).toContain("Pi Desktop 内置");
  });

  it("without the list of answers keeps the whole server from a tool that may destroy data", () => {
    const { offered: _offered, builtIn: _builtIn, ...older } = { ...mcpRequest, destructiveClaim: true };
    render(older);

    expect(buttons()).toEqual(["approve-once", "approve-conversation", "approve-tool-always", "deny", "deny-stop"]);
  });
});
