// @vitest-environment jsdom
// The sidebar against a mocked ipc/conversations: days in the backend's order, the active and streaming marks,
// search results with highlighted snippets (as text), switching, export through the save dialog, and delete with undo.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { ConversationList, SearchHit } from "../../ipc/conversations";
import type { AppState } from "../../ipc/wire";
import { localDay } from "./sidebar-model";

const ipc = vi.hoisted(() => ({
  listConversations: vi.fn(),
  searchConversations: vi.fn(),
  openConversation: vi.fn(),
  renameConversation: vi.fn(),
  deleteConversation: vi.fn(),
  restoreConversation: vi.fn(),
  chooseExportPath: vi.fn(),
  exportConversation: vi.fn(),
  revealExportedFile: vi.fn(),
}));
vi.mock("../../ipc/conversations", () => ipc);

import { LIST_PAGE_SIZE, Sidebar } from "./Sidebar";
import { STRINGS } from "../../i18n/strings";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const today = localDay(new Date());

function summary(id: string, title: string | null, updatedAt: number) {
  return { id, title, model: "scripted", createdAt: updatedAt, updatedAt };
}

const LIST: ConversationList = {
  days: [
    { day: today, conversations: [summary("c3", "PDF 清单", 3), summary("c2", null, 2)] },
    { day: "2026-01-05", conversations: [summary("c1", "Invoices", 1)] },
  ],
  activeId: "c3",
  // The list's own streaming marks are not what the dot shows: the window's answering conversations are.
  more: false,
  streamingIds: ["c1"],
  storage: { persistent: true, notices: [] },
};

const APP_STATE: AppState = {
  isStreaming: false,
  pendingToolCalls: [],
  messages: [],
  model: { provider: "scripted", id: "scripted", api: "scripted", contextWindow: 128000, imageInput: false, priced: false },
  thinkingLevel: "off",
  conversationId: "c1",
};

let container: HTMLDivElement;
let root: Root;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  for (const mock of Object.values(ipc)) mock.mockReset();
  ipc.listConversations.mockResolvedValue(LIST);
  container = document.createElement("div");
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
  vi.useRealTimers();
});

async function flush() {
  await act(async () => {
    await Promise.resolve();
  });
}

async function renderSidebar(overrides: Partial<Parameters<typeof Sidebar>[0]> = {}) {
  const props = {
    language: "en" as const,
    activeConversationId: "c3",
    answeringIds: ["c2"] as readonly string[],
    refreshToken: 0,
    onConversationOpened: vi.fn(),
    onNewConversation: vi.fn(),
    onActiveConversationDeleted: vi.fn(),
    ...overrides,
  };
  await act(async () => {
    root.render(<Sidebar {...props} />);
  });
  await flush();
  return props;
}

function byTestId(id: string): HTMLElement[] {
  return [...container.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];
}

async function click(element: Element | undefined) {
  expect(element).toBeDefined();
  await act(async () => {
    (element as HTMLElement).click();
  });
  await flush();
}

async function type(input: HTMLInputElement, value: string) {
  const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set;
  await act(async () => {
    setValue?.call(input, value);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

describe("Sidebar", () => {
  it("lists conversations by day, newest first, marking the active and the answering one", async () => {
    await renderSidebar();
    const days = byTestId("conversation-day");
    expect(days.map((day) => day.dataset["day"])).toEqual([today, "2026-01-05"]);
    expect(days.map((day) => day.querySelector("h2")?.textContent)).toEqual(["Today", "2026-01-05"]);
    const items = byTestId("conversation-item");
    expect(items.map((item) => item.querySelector(".conversation-title")?.textContent)).toEqual([
      "PDF 清单",
      "New conversation",
      "Invoices",
    ]);
    expect(items.map((item) => item.dataset["active"])).toEqual(["true", "false", "false"]);
    expect(items.map((item) => item.dataset["streaming"])).toEqual(["false", "true", "false"]);
    expect(byTestId("new-conversation")).toHaveLength(1);
    expect(byTestId("conversation-search")).toHaveLength(1);
  });

  it("shows the answering dot on exactly the conversations the window reports answering, as that changes", async () => {
    const props = await renderSidebar({ answeringIds: [] });
    const dots = () =>
      byTestId("conversation-item").map((item) => item.querySelector('[data-testid="conversation-streaming"]') !== null);
    expect(dots()).toEqual([false, false, false]);

    await act(async () => {
      root.render(<Sidebar {...props} answeringIds={["c3", "c1"]} />);
    });
    expect(dots()).toEqual([true, false, true]);
    expect(byTestId("conversation-item").map((item) => item.dataset["streaming"])).toEqual(["true", "false", "true"]);

    await act(async () => {
      root.render(<Sidebar {...props} answeringIds={["c1"]} />);
    });
    expect(dots()).toEqual([false, false, true]);
  });

  it("shows search hits with highlighted matches as text and opens the hit's conversation", async () => {
    const hits: SearchHit[] = [
      {
        conversationId: "c1",
        conversationTitle: "Invoices",
        conversationUpdatedAt: 1,
        messageSeq: 0,
        role: "user",
        snippet: [
          { text: "<b>bold?</b> the ", highlighted: false },
          { text: "invoice", highlighted: true },
          { text: " of May", highlighted: false },
        ],
      },
    ];
    ipc.searchConversations.mockResolvedValue(hits);
    ipc.openConversation.mockResolvedValue(APP_STATE);
    const props = await renderSidebar();

    await type(byTestId("conversation-search")[0] as HTMLInputElement, "  invoice ");
    await flush();
    expect(ipc.searchConversations).toHaveBeenCalledWith("invoice");
    const snippet = byTestId("search-snippet")[0];
    expect(snippet?.textContent).toBe("<b>bold?</b> the invoice of May");
    expect(snippet?.querySelector("b")).toBeNull();
    expect([...(snippet?.querySelectorAll("mark") ?? [])].map((mark) => mark.textContent)).toEqual(["invoice"]);

    await click(container.querySelector(".search-hit") ?? undefined);
    expect(ipc.openConversation).toHaveBeenCalledWith("c1");
    expect(props.onConversationOpened).toHaveBeenCalledWith(APP_STATE);
  });

  it("switches on a click, and a click on the conversation already shown does nothing", async () => {
    ipc.openConversation.mockResolvedValue(APP_STATE);
    const props = await renderSidebar();
    const openButtons = byTestId("conversation-open");
    await click(openButtons[0]);
    expect(ipc.openConversation).not.toHaveBeenCalled();
    await click(openButtons[2]);
    expect(ipc.openConversation).toHaveBeenCalledWith("c1");
    expect(props.onConversationOpened).toHaveBeenCalledWith(APP_STATE);
  });

  it("deletes with an undo toast that restores the conversation", async () => {
    const undoUntil = Date.now() + 10_000;
    ipc.deleteConversation.mockResolvedValue({ conversationId: "c3", undoUntil, wasActive: true });
    ipc.restoreConversation.mockResolvedValue(null);
    const props = await renderSidebar();

    await click(byTestId("conversation-delete")[0]);
    expect(ipc.deleteConversation).toHaveBeenCalledWith("c3");
    expect(props.onActiveConversationDeleted).toHaveBeenCalledTimes(1);
    expect(byTestId("sidebar-toast")[0]?.textContent).toContain("Deleted “PDF 清单”.");

    await click(byTestId("undo-delete")[0]);
    expect(ipc.restoreConversation).toHaveBeenCalledWith("c3");
    expect(byTestId("sidebar-toast")).toHaveLength(0);
  });

  it("lets the undo toast go when the undo window closes", async () => {
    ipc.deleteConversation.mockResolvedValue({ conversationId: "c1", undoUntil: Date.now() + 10_000, wasActive: false });
    const props = await renderSidebar();
    await click(byTestId("conversation-delete")[2]);
    expect(props.onActiveConversationDeleted).not.toHaveBeenCalled();
    expect(byTestId("undo-delete")).toHaveLength(1);
    await act(async () => {
      vi.advanceTimersByTime(10_001);
    });
    expect(byTestId("undo-delete")).toHaveLength(0);
  });

  it("exports where the save dialog says, offers the folder, and words a command error in the UI language with its detail", async () => {
    ipc.chooseExportPath.mockResolvedValueOnce("/home/u/Notes/PDF 清单.md");
    ipc.exportConversation.mockResolvedValueOnce({ fileName: "PDF 清单.md", path: "/home/u/Notes/PDF 清单.md" });
    ipc.revealExportedFile.mockResolvedValueOnce(null);
    await renderSidebar();
    await click(byTestId("conversation-export-markdown")[0]);
    expect(ipc.chooseExportPath).toHaveBeenCalledWith("c3", "markdown", "en");
    expect(ipc.exportConversation).toHaveBeenCalledWith("c3", "markdown", "en", "/home/u/Notes/PDF 清单.md");
    expect(byTestId("sidebar-toast")[0]?.textContent).toBe("Saved PDF 清单.md.Show in folder");
    await click(byTestId("export-show-in-folder")[0]);
    expect(ipc.revealExportedFile).toHaveBeenCalledWith("/home/u/Notes/PDF 清单.md");

    ipc.chooseExportPath.mockResolvedValueOnce("/home/u/Notes/PDF 清单.jsonl");
    ipc.exportConversation.mockRejectedValueOnce({ kind: "storage", code: "disk_full", detail: "write failed: no space left on device" });
    await click(byTestId("conversation-export-jsonl")[0]);
    expect(byTestId("sidebar-toast")[0]?.textContent).toBe(
      `${STRINGS.en.errorCodes.disk_full} (write failed: no space left on device)`,
    );
  });

  it("writes nothing and says nothing when the save dialog is cancelled", async () => {
    ipc.chooseExportPath.mockResolvedValueOnce(null);
    await renderSidebar();
    await click(byTestId("conversation-export-markdown")[0]);
    expect(ipc.chooseExportPath).toHaveBeenCalledWith("c3", "markdown", "en");
    expect(ipc.exportConversation).not.toHaveBeenCalled();
    expect(byTestId("sidebar-toast")).toHaveLength(0);
  });

  it("renames in place with Enter", async () => {
    ipc.renameConversation.mockResolvedValue(summary("c1", "Rechnungen", 4));
    await renderSidebar();
    await click(byTestId("conversation-rename")[2]);
    const input = byTestId("conversation-rename-input")[0] as HTMLInputElement;
    expect(input.value).toBe("Invoices");
    await type(input, "  Rechnungen ");
    await act(async () => {
      input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    });
    await flush();
    expect(ipc.renameConversation).toHaveBeenCalledWith("c1", "Rechnungen");
    expect(byTestId("conversation-rename-input")).toHaveLength(0);
  });

  it("asks for the first page of the list, and for more from its end", async () => {
    ipc.listConversations.mockResolvedValue({ ...LIST, more: true });
    await renderSidebar();
    expect(ipc.listConversations).toHaveBeenLastCalledWith(LIST_PAGE_SIZE);
    const more = byTestId("conversations-more");
    expect(more.map((button) => button.textContent)).toEqual(["Show older conversations"]);

    // The three conversations given are fewer than the page asked for: the list is still loading, so the
    // end asks for nothing more.
    await click(more[0]);
    expect(ipc.listConversations).toHaveBeenCalledTimes(1);

    const page = Array.from({ length: LIST_PAGE_SIZE }, (_, index) => ({
      id: `p${index}`,
      title: `Conversation ${index}`,
      model: null,
      createdAt: 0,
      updatedAt: LIST_PAGE_SIZE - index,
    }));
    ipc.listConversations.mockResolvedValue({ ...LIST, days: [{ day: today, conversations: page }], more: true });
    await renderSidebar({ refreshToken: 1 });
    expect(byTestId("conversation-open")).toHaveLength(LIST_PAGE_SIZE);
    await click(byTestId("conversations-more")[0]);
    expect(ipc.listConversations).toHaveBeenLastCalledWith(2 * LIST_PAGE_SIZE);

    ipc.listConversations.mockResolvedValue({ ...LIST, more: false });
    await renderSidebar({ refreshToken: 2 });
    expect(byTestId("conversations-more")).toHaveLength(0);
  });

  it("shows the answer to the query in the box, one query at a time", async () => {
    const answers: Array<(hits: SearchHit[]) => void> = [];
    ipc.searchConversations.mockImplementation(
      () => new Promise<SearchHit[]>((resolve) => answers.push(resolve)),
    );
    await renderSidebar();
    const input = byTestId("conversation-search")[0] as HTMLInputElement;
    await type(input, "in");
    await type(input, "inv");
    await type(input, "invoice");
    expect(ipc.searchConversations.mock.calls.map((call) => call[0])).toEqual(["in"]);

    const hit = (title: string): SearchHit => ({
      conversationId: "c1",
      conversationTitle: title,
      conversationUpdatedAt: 0,
      messageSeq: 0,
      role: "user",
      snippet: [{ text: title, highlighted: false }],
    });
    await act(async () => answers[0]?.([hit("stale")]));
    await flush();
    // The answer for "in" is not shown; only the newest waiting query ran next.
    expect(byTestId("search-hit")).toHaveLength(0);
    expect(ipc.searchConversations.mock.calls.map((call) => call[0])).toEqual(["in", "invoice"]);
    await act(async () => answers[1]?.([hit("fresh")]));
    await flush();
    expect(byTestId("search-hit").map((item) => item.querySelector(".search-hit-title")?.textContent)).toEqual([
      "fresh",
    ]);
  });

  it("shows why history is not saved", async () => {
    ipc.listConversations.mockResolvedValue({
      ...LIST,
      storage: { persistent: false, notices: ["Conversations cannot be saved (read-only folder)."] },
    });
    await renderSidebar();
    expect(byTestId("storage-notice")[0]?.textContent).toBe(
      "History is not being saved. Conversations cannot be saved (read-only folder).",
    );
  });
});
