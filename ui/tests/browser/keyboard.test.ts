// The window's keyboard shortcuts in the built UI (headless Chromium, the chat mock backend with two stored
// conversations): each shortcut pressed and its effect checked; a modal (Settings, the shortcuts sheet) takes
// only the key that closes it, keeps the focus inside and gives it back; `/` stays a character in a text field;
// no shortcut fires while an input method composes; and the Ctrl+Enter send key.
import { existsSync } from "node:fs";
import { join } from "node:path";

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { chatMockBackendScript, ipcCommands } from "./chat-support";
import { launchChromium, type Browser } from "./support/browser";
import { DIST_DIR, serveDist, type StaticServer } from "./support/static-server";
import { collectProblems } from "./support/page-problems";

let server: StaticServer;
let browser: Browser;
let page: Page;
let problems: string[];

beforeAll(async () => {
  if (!existsSync(join(DIST_DIR, "index.html"))) {
    throw new Error(`${DIST_DIR}/index.html is missing: run \`npm run build\` in ui/ first`);
  }
  server = await serveDist();
  browser = await launchChromium();
  await browser.context.addInitScript({ content: await chatMockBackendScript() });
  // Three stored conversations, "a" shown at start (empty, as get_state of the mock answers).
  await browser.context.addInitScript(() => {
    const now = Date.now();
    const model = { provider: "openai", id: "gpt-4.1-mini", name: "GPT-4.1 mini" };
    const summary = (id: string, title: string, age: number) => ({
      id,
      title,
      model: "gpt-4.1-mini",
      createdAt: now - age,
      updatedAt: now - age,
    });
    const state = (id: string, question: string) => ({
      conversationId: id,
      isStreaming: false,
      pendingToolCalls: [],
      messages: [{ role: "user", content: question }],
      model,
    });
    window.__chatMock.activeId = "a";
    window.__chatMock.conversations = {
      list: {
        days: [
          {
            day: new Date(now).toISOString().slice(0, 10),
            conversations: [summary("a", "Greetings", 1_000), summary("b", "PDFs in Downloads", 2_000), summary("c", "Photos", 3_000)],
          },
        ],
        activeId: "a",
        more: false,
        streamingIds: [],
        storage: { persistent: true, notices: [] },
      },
      states: { a: { ...state("a", ""), messages: [] }, b: state("b", "Which PDFs?"), c: state("c", "Where are my photos?") },
    };
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function load(query = ""): Promise<void> {
  await page.goto(`${server.url}${query}`);
  await page.getByTestId("composer-input").waitFor();
  await page.getByTestId("conversation-item").nth(2).waitFor();
}

beforeEach(async () => {
  problems = [];
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1100, height: 760 });
  collectProblems(page, problems);
});

afterEach(async () => {
  expect(problems).toEqual([]);
  await page.close();
});

/** The data-testid of the focused element (or its tag name when it has none). */
const focused = () =>
  page.evaluate(() => {
    const element = document.activeElement;
    return element?.getAttribute("data-testid") ?? element?.tagName.toLowerCase() ?? null;
  });

/** Whether the focused element is inside the element with this test id. */
const focusInside = (testId: string) =>
  page.evaluate((id) => document.querySelector(`[data-testid="${id}"]`)?.contains(document.activeElement) ?? false, testId);

const commandCount = async (command: string) => (await ipcCommands(page)).filter((cmd) => cmd === command).length;

describe("keyboard shortcuts", () => {
  it("Ctrl+N starts a new conversation, also from the composer", async () => {
    await load();
    await page.keyboard.press("Control+PageDown");
    await page.locator('[data-testid="message-user"]', { hasText: "Which PDFs?" }).waitFor();
    await page.getByTestId("composer-input").focus();
    await page.keyboard.press("Control+n");
    await page.waitForFunction(() => window.__chatMock.calls.some((call) => call.cmd === "new_conversation"));
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="message-user"]').length === 0);
  });

  it("Ctrl+K puts the focus into the sidebar's search, opening the sidebar first when it is closed", async () => {
    await load();
    await page.keyboard.press("Control+k");
    await expect(focused()).resolves.toBe("conversation-search");
    await page.keyboard.press("Control+b");
    await page.waitForFunction(() => document.querySelector('[data-testid="sidebar"]') === null);
    await page.keyboard.press("Control+k");
    await page.getByTestId("sidebar").waitFor();
    await expect(focused()).resolves.toBe("conversation-search");
  });

  it("/ goes to the composer from outside a text field and stays a character inside one", async () => {
    await load();
    await page.locator("body").click({ position: { x: 600, y: 300 } });
    await page.keyboard.press("/");
    await expect(focused()).resolves.toBe("composer-input");
    await expect(page.getByTestId("composer-input").inputValue()).resolves.toBe("");
    await page.keyboard.press("/");
    await expect(page.getByTestId("composer-input").inputValue()).resolves.toBe("/");
    await page.getByTestId("conversation-search").focus();
    await page.keyboard.press("/");
    await expect(page.getByTestId("conversation-search").inputValue()).resolves.toBe("/");
    await expect(focused()).resolves.toBe("conversation-search");
  });

  it("Ctrl+PageDown and Ctrl+PageUp open the next and previous conversation of the list", async () => {
    await load();
    await page.keyboard.press("Control+PageDown");
    await page.locator('[data-testid="message-user"]', { hasText: "Which PDFs?" }).waitFor();
    await page.keyboard.press("Control+PageDown");
    await page.locator('[data-testid="message-user"]', { hasText: "Where are my photos?" }).waitFor();
    // The end of the list: nothing more to open.
    const opened = await commandCount("open_conversation");
    await page.keyboard.press("Control+PageDown");
    await page.keyboard.press("Control+PageUp");
    await page.locator('[data-testid="message-user"]', { hasText: "Which PDFs?" }).waitFor();
    await expect(commandCount("open_conversation")).resolves.toBe(opened + 1);
  });

  it("Ctrl+B hides and shows the sidebar, Ctrl+I the loop inspector", async () => {
    await load();
    await page.keyboard.press("Control+b");
    await page.waitForFunction(() => document.querySelector('[data-testid="sidebar"]') === null);
    await expect(page.getByTestId("sidebar-toggle").getAttribute("aria-expanded")).resolves.toBe("false");
    await page.keyboard.press("Control+b");
    await page.getByTestId("sidebar").waitFor();
    await page.keyboard.press("Control+i");
    await page.getByTestId("inspector-panel").waitFor();
    await page.keyboard.press("Control+i");
    await page.waitForFunction(() => document.querySelector('[data-testid="inspector-panel"]') === null);
  });

  it("Ctrl+/ opens the sheet of every shortcut, which keeps the focus, takes no other shortcut and gives the focus back", async () => {
    await load();
    await page.getByTestId("composer-input").focus();
    await page.keyboard.press("Control+/");
    const sheet = page.getByTestId("shortcuts-sheet");
    await sheet.waitFor();
    await expect(focusInside("shortcuts-sheet")).resolves.toBe(true);
    await expect(sheet.getByTestId("shortcut-row").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-action")))).resolves.toEqual([
      "newConversation",
      "searchConversations",
      "toggleSettings",
      "focusComposer",
      "previousConversation",
      "nextConversation",
      "toggleSidebar",
      "toggleShortcuts",
      "toggleInspector",
      "stopRun",
      "send",
      "newLine",
      "steer",
      "followUp",
    ]);
    await expect(sheet.locator('[data-action="previousConversation"] kbd').textContent()).resolves.toBe("Ctrl+PgUp");
    await expect(sheet.locator('[data-action="send"] kbd').textContent()).resolves.toBe("Enter");
    for (let step = 0; step < 4; step += 1) {
      await page.keyboard.press("Tab");
      await expect(focusInside("shortcuts-sheet")).resolves.toBe(true);
      await page.keyboard.press("Shift+Tab");
      await expect(focusInside("shortcuts-sheet")).resolves.toBe(true);
    }
    // Shortcuts other than the sheet's own do nothing while it is open.
    await page.keyboard.press("Control+b");
    await page.keyboard.press("Control+,");
    await page.keyboard.press("Control+n");
    await expect(page.getByTestId("sidebar").count()).resolves.toBe(1);
    await expect(page.getByTestId("settings-panel").count()).resolves.toBe(0);
    await expect(commandCount("new_conversation")).resolves.toBe(0);

    await page.keyboard.press("Control+/");
    await page.waitForFunction(() => document.querySelector('[data-testid="shortcuts-sheet"]') === null);
    await expect(focused()).resolves.toBe("composer-input");

    await page.getByTestId("shortcuts-button").click();
    await sheet.waitFor();
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => document.querySelector('[data-testid="shortcuts-sheet"]') === null);
    await expect(focused()).resolves.toBe("shortcuts-button");
  });

  it("Ctrl+, opens and closes Settings, which keeps the focus inside and gives it back", async () => {
    await load();
    await page.getByTestId("composer-input").focus();
    await page.keyboard.press("Control+,");
    await page.getByTestId("settings-panel").waitFor();
    await page.getByTestId("settings-save").waitFor();
    await expect(focusInside("settings-panel")).resolves.toBe(true);
    // Tab through more controls than the panel has: the focus never leaves it.
    const controls = await page.getByTestId("settings-panel").locator("button, input, select, textarea").count();
    for (let step = 0; step < controls + 3; step += 1) {
      await page.keyboard.press("Tab");
      await expect(focusInside("settings-panel")).resolves.toBe(true);
    }
    await page.keyboard.press("Shift+Tab");
    await expect(focusInside("settings-panel")).resolves.toBe(true);
    await page.keyboard.press("Control+/");
    await page.keyboard.press("Control+k");
    await expect(page.getByTestId("shortcuts-sheet").count()).resolves.toBe(0);
    await expect(focusInside("settings-panel")).resolves.toBe(true);

    await page.keyboard.press("Control+,");
    await page.waitForFunction(() => document.querySelector('[data-testid="settings-panel"]') === null);
    await expect(focused()).resolves.toBe("composer-input");

    await page.getByTestId("settings-button").click();
    await page.getByTestId("settings-panel").waitFor();
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => document.querySelector('[data-testid="settings-panel"]') === null);
    await expect(focused()).resolves.toBe("settings-button");
  });

  it("no shortcut fires while an input method composes", async () => {
    await load();
    await page.getByTestId("composer-input").focus();
    await page.evaluate(() => {
      const composing = (key: string, ctrlKey: boolean) =>
        new KeyboardEvent("keydown", { key, ctrlKey, isComposing: true, bubbles: true, cancelable: true });
      const input = document.querySelector('[data-testid="composer-input"]');
      for (const [key, ctrlKey] of [["n", true], ["b", true], ["/", true], [",", true], ["Enter", false]] as const) {
        input?.dispatchEvent(composing(key, ctrlKey));
      }
    });
    // The same keys without the composition do act: the sidebar goes, so nothing above was swallowed by chance.
    await page.keyboard.press("Control+b");
    await page.waitForFunction(() => document.querySelector('[data-testid="sidebar"]') === null);
    await expect(commandCount("new_conversation")).resolves.toBe(0);
    await expect(commandCount("prompt")).resolves.toBe(0);
    await expect(page.getByTestId("shortcuts-sheet").count()).resolves.toBe(0);
    await expect(page.getByTestId("settings-panel").count()).resolves.toBe(0);
  });

  it("with Ctrl+Enter as the send key, Enter makes a new line and Ctrl+Enter sends", async () => {
    await load("?sendKey=ctrlEnter");
    const input = page.getByTestId("composer-input");
    await expect(input.getAttribute("placeholder")).resolves.toContain("Ctrl+Enter");
    await input.fill("first line");
    await input.press("Enter");
    await input.type("second line");
    await expect(input.inputValue()).resolves.toBe("first line\nsecond line");
    await expect(commandCount("prompt")).resolves.toBe(0);
    await input.press("Control+Enter");
    await page.waitForFunction(() => window.__chatMock.calls.some((call) => call.cmd === "prompt"));
    const sent = await page.evaluate(() => window.__chatMock.calls.find((call) => call.cmd === "prompt")?.args);
    expect(sent).toMatchObject({ text: "first line\nsecond line" });
    await page.keyboard.press("Control+/");
    await expect(page.locator('[data-testid="shortcuts-sheet"] [data-action="send"] kbd').textContent()).resolves.toBe("Ctrl+Enter");
    await expect(page.locator('[data-testid="shortcuts-sheet"] [data-action="newLine"] kbd').textContent()).resolves.toBe("Enter");
  });

  it("the send key and theme are saved from Settings and take effect at once", async () => {
    await load();
    await page.getByTestId("settings-button").click();
    await page.getByTestId("settings-theme").selectOption("dark");
    await page.getByTestId("settings-send-key").selectOption("ctrlEnter");
    await page.getByTestId("settings-save").click();
    await page.waitForFunction(() => document.documentElement.getAttribute("data-theme") === "dark");
    const saved = await page.evaluate(() => window.__chatMock.calls.find((call) => call.cmd === "save_settings")?.args);
    expect(saved).toMatchObject({ settings: { theme: "dark", sendKey: "ctrlEnter" } });
    await expect(page.evaluate(() => localStorage.getItem("pi-desktop.theme"))).resolves.toBe("dark");
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("composer-input").getAttribute("placeholder")).resolves.toContain("Ctrl+Enter");
  });
});
