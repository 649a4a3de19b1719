// @vitest-environment jsdom
// "Approvals" against a mocked ipc/backend: the built-in tools toggle saves what it shows and shows what the host
// kept, the conversation grants are listed with their conversation, server (the app itself for a built-in tool)
// and tool, Revoke asks the host and shows what it answers, and with no grants the section says so.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { StringsContext } from "../../i18n/I18n";
import { STRINGS } from "../../i18n/strings";
import type { ConversationGrant } from "../../ipc/bindings/ConversationGrant";

const ipc = vi.hoisted(() => ({
  approvalSettings: vi.fn(),
  saveApprovalSettings: vi.fn(),
  conversationGrants: vi.fn(),
  revokeConversationGrant: vi.fn(),
  toCommandError: (error: unknown) => error,
}));
vi.mock("../../ipc/backend", () => ipc);

import { ApprovalSection } from "./ApprovalSection";

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

const kettle: ConversationGrant = {
  conversationId: "c-kettle",
  conversationTitle: "Where is my kettle?",
  server: "everything",
  tool: "get-sum",
  builtIn: false,
  grantedAt: 1_796_040_000_000,
};
const listing: ConversationGrant = {
  conversationId: "c-new",
  conversationTitle: null,
  server: "",
  tool: "list_folder",
  builtIn: true,
  grantedAt: 1_796_040_001_000,
};

async function settle() {
  await act(async () => {
    await Promise.resolve();
  });
}

async function render(ask: boolean, grants: ConversationGrant[], language: "en" | "zh" = "en") {
  ipc.approvalSettings.mockResolvedValue({ askBeforeBuiltInTools: ask });
  ipc.conversationGrants.mockResolvedValue(grants);
  await act(async () => {
    root.render(
      <StringsContext.Provider value={STRINGS[language]}>
        <ApprovalSection />
      </StringsContext.Provider>,
    );
  });
  await settle();
}

const byTestId = (id: string) => container.querySelector<HTMLElement>(`[data-testid="${id}"]`);
const toggle = () => byTestId("ask-builtin-tools") as HTMLInputElement;
const grantRows = () => [...container.querySelectorAll<HTMLElement>('[data-testid="conversation-grant"]')];

describe("Approvals in the settings", () => {
  it("shows the stored setting, saves a change and shows what the host kept", async () => {
    await render(false, []);
    expect(byTestId("approval-settings")?.querySelector("h3")?.textContent).toBe("Approvals");
    expect(toggle().checked).toBe(false);
    expect(toggle().disabled).toBe(false);

    ipc.saveApprovalSettings.mockResolvedValue({ askBeforeBuiltInTools: true });
    await act(async () => {
      toggle().click();
    });
    await settle();

    expect(ipc.saveApprovalSettings).toHaveBeenCalledWith({ askBeforeBuiltInTools: true });
    expect(toggle().checked).toBe(true);
  });

  it("keeps the stored value and shows why when saving fails", async () => {
    await render(true, []);
    ipc.saveApprovalSettings.mockRejectedValue({ kind: "storage", code: "settings_not_saved", detail: "cannot access settings file" });

    await act(async () => {
      toggle().click();
    });
    await settle();

    expect(toggle().checked).toBe(true);
    expect(container.querySelector('[role="alert"]')?.textContent).toBe(
      `${STRINGS.en.errorCodes.settings_not_saved}cannot access settings file`,
    );
  });

  it("lists each grant with its conversation, server and tool, the app itself for a built-in tool", async () => {
    await render(false, [listing, kettle]);

    const [first, second] = grantRows();
    expect(first?.textContent).toContain("Untitled conversation");
    expect(first?.querySelector(".grant-server")?.textContent).toBe("Pi Desktop");
    expect(first?.querySelector(".grant-tool")?.textContent).toBe("list_folder");
    expect(second?.querySelector(".grant-conversation")?.textContent).toBe("Where is my kettle?");
    expect(second?.querySelector(".grant-server")?.textContent).toBe("everything");
    expect(byTestId("conversation-grants-none")).toBeNull();
  });

  it("names the app in Chinese for a built-in tool", async () => {
    await render(false, [listing], "zh");

    expect(grantRows()[0]?.querySelector(".grant-server")?.textContent).toBe("Pi Desktop 内置");
    expect(grantRows()[0]?.textContent).toContain("未命名对话");
  });

  it("revokes a grant through the host and shows the grants it answers with", async () => {
    await render(false, [listing, kettle]);
    ipc.revokeConversationGrant.mockResolvedValue([kettle]);

    await act(async () => {
      grantRows()[0]?.querySelector<HTMLButtonElement>('[data-testid="revoke-conversation-grant"]')?.click();
    });
    await settle();

    expect(ipc.revokeConversationGrant).toHaveBeenCalledWith("c-new", "", "list_folder");
    expect(grantRows().map((row) => row.getAttribute("data-tool"))).toEqual(["get-sum"]);
  });

  it("says so when no tool is allowed in any conversation", async () => {
    await render(false, [kettle]);
    ipc.revokeConversationGrant.mockResolvedValue([]);

    expect(byTestId("conversation-grants-none")).toBeNull();
    await act(async () => {
      grantRows()[0]?.querySelector<HTMLButtonElement>('[data-testid="revoke-conversation-grant"]')?.click();
    });
    await settle();

    expect(grantRows()).toHaveLength(0);
    expect(byTestId("conversation-grants-none")?.textContent).toBe("No tool is allowed in any conversation.");
  });
});
