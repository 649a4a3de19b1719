// The chat with the conversation sidebar, in headless Chromium against the chat mock backend: the first render
// already listing the conversations, switching
// conversation while a run streams (the old run's envelopes never reach the shown transcript), an answer cut off
// by a crash shown as interrupted, a clicked system notification opening its conversation, and the layout in light, dark and at the minimum window size.
// Screenshots go to artifacts/ at the repository root (gitignored).
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { assistantMessage, event, notice, runEnd, runStart, update } from "../../src/state/__fixtures__/builders";
import { RunDriver, chatMockBackendScript } from "./chat-support";
import { launchChromium, type Browser } from "./support/browser";
import { DIST_DIR, serveDist, type StaticServer } from "./support/static-server";
import { collectProblems } from "./support/page-problems";

const ARTIFACTS = resolve(DIST_DIR, "..", "..", "artifacts");
const INTERRUPTED = "interrupted: the app stopped before this message was complete";

let server: StaticServer;
let browser: Browser;
let page: Page;
let run: RunDriver;
let problems: string[];

beforeAll(async () => {
  if (!existsSync(join(DIST_DIR, "index.html"))) {
    throw new Error(`${DIST_DIR}/index.html is missing: run \`npm run build\` in ui/ first`);
  }
  await mkdir(ARTIFACTS, { recursive: true });
  server = await serveDist();
  browser = await launchChromium();
  await browser.context.addInitScript({ content: await chatMockBackendScript() });
  // Two stored conversations: "a" (shown at start, empty) and "b" whose last answer a crash cut off.
  await browser.context.addInitScript((interrupted: string) => {
    const now = Date.now();
    const model = { provider: "openai", id: "gpt-4.1-mini", name: "GPT-4.1 mini" };
    const partial = {
      role: "assistant",
      content: [{ type: "text", text: "Your Downloads folder holds two PDFs: the quarterly report and" }],
      api: "openai-responses",
      provider: "openai",
      model: "gpt-4.1-mini",
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "aborted",
      errorMessage: interrupted,
    };
    window.__chatMock.conversations = {
      list: {
        days: [
          {
            day: new Date(now).toISOString().slice(0, 10),
            conversations: [
              { id: "a", title: "Greetings", model: "gpt-4.1-mini", createdAt: now - 60_000, updatedAt: now - 1_000 },
              { id: "b", title: "PDFs in Downloads", model: "gpt-4.1-mini", createdAt: now - 90_000, updatedAt: now - 30_000 },
            ],
          },
        ],
        activeId: "a",
        more: false,
        streamingIds: [],
        storage: { persistent: true, notices: [] },
      },
      states: {
        a: { conversationId: "a", isStreaming: false, pendingToolCalls: [], messages: [], model },
        b: {
          conversationId: "b",
          isStreaming: false,
          pendingToolCalls: [],
          messages: [{ role: "user", content: "Which PDFs are in my Downloads?" }, partial],
          model,
        },
      },
    };
  }, INTERRUPTED);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

beforeEach(async () => {
  problems = [];
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1100, height: 760 });
  collectProblems(page, problems);
  await page.goto(server.url);
  await page.getByTestId("composer-input").waitFor();
  await page.getByTestId("conversation-item").nth(1).waitFor();
  run = new RunDriver(page);
});

afterEach(async () => {
  expect(problems).toEqual([]);
  await expect(page.getByTestId("sidebar-toast").count()).resolves.toBe(0);
  await page.close();
});

async function openConversation(index: number): Promise<void> {
  await page.getByTestId("conversation-item").nth(index).getByTestId("conversation-open").click();
}

describe("chat with the conversation sidebar", () => {
  it("the window's first render already lists the conversations: they are asked for before it", async () => {
    const fresh = await browser.context.newPage();
    await fresh.addInitScript(() => {
      const firstRender = new MutationObserver(() => {
        const root = document.getElementById("root");
        if (root === null || root.childElementCount === 0) return;
        (window as unknown as { __firstRenderItems: number }).__firstRenderItems =
          document.querySelectorAll('[data-testid="conversation-item"]').length;
        firstRender.disconnect();
      });
      firstRender.observe(document, { childList: true, subtree: true });
    });
    await fresh.goto(server.url);
    await fresh.getByTestId("conversation-item").nth(1).waitFor();

    await expect(
      fresh.evaluate(() => (window as unknown as { __firstRenderItems?: number }).__firstRenderItems),
    ).resolves.toBe(2);
    await fresh.close();
  });

  it("switching away from a streaming run shows only the opened conversation, and the old run's events are dropped", async () => {
    await page.getByTestId("composer-input").fill("Hello");
    await page.getByTestId("composer-input").press("Enter");
    await run.waitForRun();
    await run.send(
      ...runStart("Hello"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
      update({ type: "text_delta", contentIndex: 0, delta: "Hi from a" }),
    );
    await page.locator('[data-testid="message-assistant"][data-state="streaming"]').waitFor();

    await openConversation(1);
    await page.locator('[data-testid="message-assistant"][data-state="interrupted"]').waitFor();

    // The run of "a" goes on in the background: its events and its end must not reach "b"'s transcript.
    await run.send(
      update({ type: "text_delta", contentIndex: 0, delta: " and more from a" }),
      event({ type: "message_end", message: assistantMessage([{ type: "text", text: "Hi from a and more from a" }], "stop") }),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
      update({ type: "text_delta", contentIndex: 0, delta: "Second answer from a" }),
      event({ type: "message_end", message: assistantMessage([{ type: "text", text: "Second answer from a" }], "stop") }),
      notice({ type: "error", source: "persistence", message: "Saving of a failed" }),
      ...runEnd("late error of a"),
    );
    await run.finish();
    await page.waitForFunction(() => !window.__chatMock.hasRun());

    await expect(page.getByTestId("message-user").allTextContents()).resolves.toEqual([
      "Which PDFs are in my Downloads?",
    ]);
    await expect(page.getByTestId("message-assistant").count()).resolves.toBe(1);
    await expect(page.getByTestId("error-banner").count()).resolves.toBe(0);
    await expect(page.locator("body").textContent()).resolves.not.toContain("from a");
    await expect(page.getByTestId("run-status").getAttribute("data-state")).resolves.toBe("idle");
    await expect(page.getByTestId("send-button").isEnabled()).resolves.toBe(true);
  });

  it("shows an answer cut off by a crash as interrupted, in light, dark and at the minimum window size", async () => {
    await openConversation(1);
    const answer = page.locator('[data-testid="message-assistant"][data-state="interrupted"]');
    await answer.waitFor();
    await expect(answer.getByTestId("interrupted-label").textContent()).resolves.toContain(
      "Interrupted — the app closed before this answer was complete",
    );
    await expect(answer.getByTestId("assistant-text").textContent()).resolves.toContain("two PDFs");
    await expect(answer.getByTestId("retry-button").isVisible()).resolves.toBe(true);
    await expect(page.locator('[data-testid="message-assistant"][data-state="stopped"]').count()).resolves.toBe(0);

    await page.emulateMedia({ colorScheme: "light" });
    await page.screenshot({ path: join(ARTIFACTS, "conversations-light.png") });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: join(ARTIFACTS, "conversations-dark.png") });

    // The window's minimum size: the sidebar collapses, nothing spills sideways, the toggle brings it back.
    await page.setViewportSize({ width: 640, height: 480 });
    await page.waitForFunction(() => document.querySelector('[data-testid="sidebar"]') === null);
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(640);
    await page.screenshot({ path: join(ARTIFACTS, "conversations-narrow-dark.png") });
    await page.getByTestId("sidebar-toggle").click();
    await page.getByTestId("sidebar").waitFor();
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(640);
    await page.emulateMedia({ colorScheme: "light" });
    await page.screenshot({ path: join(ARTIFACTS, "conversations-narrow-open-light.png") });
    // A click beside the overlay closes it; opening a conversation from it closes it too.
    await page.getByTestId("sidebar-backdrop").click({ position: { x: 600, y: 240 } });
    await page.waitForFunction(() => document.querySelector('[data-testid="sidebar"]') === null);
    await page.getByTestId("sidebar-toggle").click();
    await page.getByTestId("sidebar").waitFor();
    // Opening a conversation from the overlay closes it again.
    await openConversation(0);
    await page.waitForFunction(() => document.querySelector('[data-testid="sidebar"]') === null);
    await expect(page.getByTestId("message-assistant").count()).resolves.toBe(0);
  });

  it("a clicked notification opens its conversation (not the one shown), and the tray starts a new one", async () => {
    await page.waitForFunction(() => window.__chatMock.calls.some((call) => call.cmd === "plugin:event|listen"));
    await page.evaluate(() => window.__chatMock.emit("open-conversation-requested", { conversationId: "b" }));
    await page.locator('[data-testid="message-assistant"][data-state="interrupted"]').waitFor();
    await expect(page.getByTestId("message-user").allTextContents()).resolves.toEqual([
      "Which PDFs are in my Downloads?",
    ]);
    // A second click on a notification of the conversation shown now opens nothing again.
    await page.evaluate(() => window.__chatMock.emit("open-conversation-requested", { conversationId: "b" }));
    const opened = await page.evaluate(() =>
      window.__chatMock.calls.filter((call) => call.cmd === "open_conversation").map((call) => call.args["conversationId"]),
    );
    expect(opened).toEqual(["b"]);

    // The tray menu's New conversation starts one, as the window's own button does.
    await page.evaluate(() => window.__chatMock.emit("new-conversation-requested", null));
    await page.waitForFunction(() => window.__chatMock.calls.some((call) => call.cmd === "new_conversation"));
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="message-user"]').length === 0);
  });
});
