// Accessibility of the built UI in headless Chromium: axe-core finds no serious or critical violation on the main
// screens (the setup card, a chat with an answer and a tool card, Settings, the shortcuts sheet) in English and
// Chinese, light and dark; a finished answer reaches the polite live region once, as its final text; reduced
// motion stops the animations; and the theme the window remembered is on the document before the body is parsed
// (no flash of the other theme).
// Screenshots go to artifacts/ (the dark theme and the sheet, both languages).
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { assistantMessage, event, notice, runEnd, runStart, update } from "../../src/state/__fixtures__/builders";
import { RunDriver, chatMockBackendScript } from "./chat-support";
import { seriousViolations } from "./support/axe";
import { launchChromium, type Browser } from "./support/browser";
import { DIST_DIR, serveDist, type StaticServer } from "./support/static-server";
import { collectProblems } from "./support/page-problems";

const ARTIFACTS = resolve(DIST_DIR, "..", "..", "artifacts");

type Language = "en" | "zh";
type Theme = "light" | "dark";
const COMBINATIONS: [Language, Theme][] = [
  ["en", "light"],
  ["en", "dark"],
  ["zh", "light"],
  ["zh", "dark"],
];

let server: StaticServer;
let problems: string[];

beforeAll(async () => {
  if (!existsSync(join(DIST_DIR, "index.html"))) {
    throw new Error(`${DIST_DIR}/index.html is missing: run \`npm run build\` in ui/ first`);
  }
  await mkdir(ARTIFACTS, { recursive: true });
  server = await serveDist();
});

afterAll(async () => {
  await server?.close();
});

function watchProblems(page: Page): void {
  collectProblems(page, problems);
}

const LIST_CALL = {
  type: "toolCall" as const,
  id: "call_list_1",
  name: "list_download_files",
  arguments: { extensions: ["pdf"] },
};
const ANSWER = "You have **two PDFs** in Downloads: *report.pdf* and *invoice.pdf*.";
const ANSWER_TEXT = "You have two PDFs in Downloads: report.pdf and invoice.pdf.";

/** A whole run: a list_download_files call with its file list, then the answer streamed in pieces. */
async function answerWithToolCard(page: Page, run: RunDriver, finish = true): Promise<void> {
  await page.getByTestId("composer-input").fill("Which PDFs are in my Downloads?");
  await page.getByTestId("composer-input").press("Enter");
  await run.waitForRun();
  await run.send(
    ...runStart("Which PDFs are in my Downloads?"),
    event({ type: "message_start", message: assistantMessage([], "pending") }),
    update({ type: "toolcall_start", contentIndex: 0, block: { ...LIST_CALL, arguments: {} } }),
    update({ type: "toolcall_end", contentIndex: 0, toolCall: LIST_CALL }),
    event({ type: "message_end", message: assistantMessage([LIST_CALL], "toolUse") }),
    event({ type: "tool_execution_start", toolCallId: LIST_CALL.id, toolName: LIST_CALL.name, args: LIST_CALL.arguments }),
    event({
      type: "tool_execution_end",
      toolCallId: LIST_CALL.id,
      toolName: LIST_CALL.name,
      result: {
        content: [{ type: "text", text: "{...}" }],
        details: {
          folder: "downloads",
          path: "",
          entries: [
            { name: "report.pdf", relativePath: "report.pdf", size: 2_400_000, modifiedMs: Date.UTC(2026, 10, 28), kind: "pdf" },
            { name: "invoice.pdf", relativePath: "invoice.pdf", size: 180_000, modifiedMs: Date.UTC(2026, 10, 26), kind: "pdf" },
          ],
          totalMatched: 2,
          scanned: 12,
          skipped: 0,
          scanTruncated: false,
          nextCursor: null,
        },
      },
      isError: false,
    }),
    event({ type: "message_start", message: assistantMessage([], "pending") }),
    update({ type: "text_start", contentIndex: 0 }),
    update({ type: "text_delta", contentIndex: 0, delta: "You have **two PDFs** " }),
    update({ type: "text_delta", contentIndex: 0, delta: "in Downloads: *report.pdf* " }),
  );
  await page.locator('[data-testid="message-assistant"][data-state="streaming"]').waitFor();
  if (!finish) return;
  await run.send(
    update({ type: "text_delta", contentIndex: 0, delta: "and *invoice.pdf*." }),
    event({ type: "message_end", message: assistantMessage([{ type: "text", text: ANSWER }], "stop") }),
    ...runEnd(),
  );
  await page.locator('[data-testid="run-status"][data-state="idle"]').waitFor();
}

describe("the chat screens", () => {
  let browser: Browser;
  let page: Page;
  let run: RunDriver;

  beforeAll(async () => {
    browser = await launchChromium();
    await browser.context.addInitScript({ content: await chatMockBackendScript() });
    // A sidebar with a few stored conversations; the shown one ("c-1") starts empty.
    await browser.context.addInitScript(() => {
      const now = Date.now();
      const summary = (id: string, title: string, age: number) => ({
        id,
        title,
        model: "gpt-4.1-mini",
        createdAt: now - age,
        updatedAt: now - age,
      });
      window.__chatMock.conversations.list = {
        days: [
          {
            day: new Date(now).toISOString().slice(0, 10),
            conversations: [
              summary("c-1", "PDFs in Downloads", 1_000),
              summary("b", "Holiday photos", 60_000),
              summary("c", "Quarterly report summary", 120_000),
            ],
          },
        ],
        activeId: "c-1",
        more: false,
        streamingIds: [],
        storage: { persistent: true, notices: [] },
      };
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    problems = [];
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1100, height: 760 });
    watchProblems(page);
    run = new RunDriver(page);
  });

  afterEach(async () => {
    expect(problems).toEqual([]);
    await page.close();
  });

  it.each(COMBINATIONS)("have no serious or critical axe violation (%s, %s)", async (language, theme) => {
    await page.goto(`${server.url}?lang=${language}&theme=${theme}`);
    await page.getByTestId("composer-input").waitFor();
    await page.waitForFunction((wanted) => document.documentElement.getAttribute("data-theme") === wanted, theme);
    await page.waitForFunction((lang) => document.documentElement.lang.startsWith(lang), language);

    await answerWithToolCard(page, run);
    await page.locator('[data-testid="tool-card"][data-state="done"]').waitFor();
    await expect(seriousViolations(page), "a chat with an answer and a tool card").resolves.toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, `a11y-chat-${language}-${theme}.png`) });

    await page.getByTestId("settings-button").click();
    await page.getByTestId("settings-save").waitFor();
    await page.getByTestId("mcp-settings").waitFor();
    await expect(seriousViolations(page), "Settings").resolves.toEqual([]);
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => document.querySelector('[data-testid="settings-panel"]') === null);

    await page.keyboard.press("Control+/");
    await page.getByTestId("shortcuts-sheet").waitFor();
    await expect(seriousViolations(page), "the shortcuts sheet").resolves.toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, `a11y-shortcuts-${language}-${theme}.png`) });
  });

  it("announces a finished answer once, as its final text, and nothing while it streams", async () => {
    await page.goto(server.url);
    await page.getByTestId("composer-input").waitFor();
    const region = page.getByTestId("answer-announcer");
    await expect(region.getAttribute("aria-live")).resolves.toBe("polite");
    // Every text the region holds, in order, from now on.
    await page.evaluate(() => {
      const target = document.querySelector('[data-testid="answer-announcer"]');
      const texts: string[] = [];
      (window as unknown as { __announced: string[] }).__announced = texts;
      if (target === null) throw new Error("no live region");
      new MutationObserver(() => texts.push(target.textContent ?? "")).observe(target, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    const announced = () => page.evaluate(() => (window as unknown as { __announced: string[] }).__announced);

    await answerWithToolCard(page, run, false);
    await expect(region.textContent()).resolves.toBe("");
    await run.send(
      update({ type: "text_delta", contentIndex: 0, delta: "and *invoice.pdf*." }),
      event({ type: "message_end", message: assistantMessage([{ type: "text", text: ANSWER }], "stop") }),
      event({ type: "agent_end", messages: [] }),
    );
    await page.locator('[data-testid="run-status"][data-state="settling"]').waitFor();
    await expect(announced()).resolves.toEqual([]);
    await run.send(notice({ type: "state", isStreaming: false, pendingToolCalls: [] }), notice({ type: "idle" }));
    await page.locator('[data-testid="run-status"][data-state="idle"]').waitFor();
    await page.waitForFunction(() => (window as unknown as { __announced: string[] }).__announced.length > 0);
    // The answer as shown, without its Markdown marks.
    await expect(announced()).resolves.toEqual([ANSWER_TEXT]);

    // Later renders (a new conversation, Settings opened and closed) announce nothing again.
    await page.getByTestId("settings-button").click();
    await page.getByTestId("settings-panel").waitFor();
    await page.keyboard.press("Escape");
    await page.getByTestId("new-conversation-button").click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="message-assistant"]').length === 0);
    await expect(announced()).resolves.toEqual([ANSWER_TEXT]);
  });

  it("announces an answer whose whole run reached the window in one delivery", async () => {
    await page.goto(server.url);
    await page.getByTestId("composer-input").fill("Say hi");
    await page.getByTestId("composer-input").press("Enter");
    await run.waitForRun();
    await run.send(
      ...runStart("Say hi"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
      update({ type: "text_delta", contentIndex: 0, delta: "Hello **there**." }),
      event({ type: "message_end", message: assistantMessage([{ type: "text", text: "Hello **there**." }], "stop") }),
      ...runEnd(),
    );
    await page.locator('[data-testid="run-status"][data-state="idle"]').waitFor();
    const region = page.getByTestId("answer-announcer");
    await expect.poll(() => region.textContent()).toBe("Hello there.");
  });

  it("announces a long answer by its beginning, cut at a word", async () => {
    await page.goto(server.url);
    await page.getByTestId("composer-input").fill("Write a long report");
    await page.getByTestId("composer-input").press("Enter");
    await run.waitForRun();
    const paragraphs = Array.from({ length: 400 }, (_, index) => `Paragraph ${index} says **something** plain.`);
    const long = paragraphs.join("\n\n");
    await run.send(
      ...runStart("Write a long report"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
      update({ type: "text_delta", contentIndex: 0, delta: long }),
    );
    await page.locator('[data-testid="message-assistant"][data-state="streaming"]').waitFor();
    await run.send(
      event({ type: "message_end", message: assistantMessage([{ type: "text", text: long }], "stop") }),
      ...runEnd(),
    );
    await page.locator('[data-testid="run-status"][data-state="idle"]').waitFor();
    const region = page.getByTestId("answer-announcer");
    await expect.poll(() => region.textContent()).not.toBe("");
    const announced = (await region.textContent()) ?? "";
    expect(announced.length).toBeLessThanOrEqual(2_000);
    expect(announced.length).toBeGreaterThan(1_900);
    expect(announced.endsWith("…")).toBe(true);
    // The answer as shown (no Markdown marks), from its first paragraph on.
    expect(announced).toMatch(/^Paragraph 0 says something plain\.\s*Paragraph 1 says something plain\./);
    expect(announced).not.toContain("**");
  });

  it("honours the system's reduced motion: the waiting dots keep still", async () => {
    await page.goto(server.url);
    await page.getByTestId("composer-input").fill("Hello");
    await page.getByTestId("composer-input").press("Enter");
    await run.waitForRun();
    await run.send(...runStart("Hello"), event({ type: "message_start", message: assistantMessage([], "pending") }));
    const dot = page.locator(".typing span").first();
    await dot.waitFor();
    const animation = () => dot.evaluate((element) => getComputedStyle(element).animationName);
    await expect(animation()).resolves.toBe("pulse");
    await page.emulateMedia({ reducedMotion: "reduce" });
    await expect(animation()).resolves.toBe("none");
    await page.emulateMedia({ reducedMotion: "no-preference" });
    await expect(animation()).resolves.toBe("pulse");
  });

  it("has the remembered theme on the document before the body is parsed, whatever the system's scheme", async () => {
    for (const [remembered, system] of [
      ["dark", "light"],
      ["light", "dark"],
    ] as const) {
      await page.emulateMedia({ colorScheme: system });
      await page.addInitScript((stored) => {
        window.localStorage.setItem("pi-desktop.theme", stored);
        const seen: { atBody?: string | null; atRoot?: string | null } = {};
        (window as unknown as { __themeSeen: typeof seen }).__themeSeen = seen;
        const observer = new MutationObserver(() => {
          if (seen.atBody === undefined && document.body !== null) {
            seen.atBody = document.documentElement.getAttribute("data-theme");
          }
          const root = document.getElementById("root");
          if (seen.atRoot === undefined && root !== null && root.firstChild !== null) {
            seen.atRoot = document.documentElement.getAttribute("data-theme");
            observer.disconnect();
          }
        });
        observer.observe(document, { childList: true, subtree: true });
      }, remembered);
      await page.goto(`${server.url}?theme=${remembered}`);
      await page.getByTestId("composer-input").waitFor();
      const seen = await page.evaluate(() => (window as unknown as { __themeSeen: object }).__themeSeen);
      expect(seen).toEqual({ atBody: remembered, atRoot: remembered });
      await expect(page.evaluate(() => getComputedStyle(document.body).colorScheme)).resolves.toBe(remembered);
    }
  });
});

describe("the setup card", () => {
  let browser: Browser;
  let page: Page;

  async function setupBackendScript(): Promise<string> {
    const result = await build({
      entryPoints: [fileURLToPath(new URL("./setup-mock-backend.ts", import.meta.url))],
      bundle: true,
      format: "iife",
      platform: "browser",
      target: "es2022",
      write: false,
      logLevel: "silent",
    });
    const output = result.outputFiles[0];
    if (output === undefined) throw new Error("esbuild produced no setup mock backend bundle");
    return output.text;
  }

  beforeAll(async () => {
    browser = await launchChromium();
    await browser.context.addInitScript({ content: await setupBackendScript() });
  });

  afterAll(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    problems = [];
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1100, height: 760 });
    watchProblems(page);
  });

  afterEach(async () => {
    expect(problems).toEqual([]);
    await page.close();
  });

  it.each(COMBINATIONS)("has no serious or critical axe violation (%s, %s)", async (language, theme) => {
    await page.goto(`${server.url}?lang=${language}&theme=${theme}`);
    await page.getByTestId("setup-card").waitFor();
    await page.getByTestId("send-blocked-reason").waitFor();
    await page.waitForFunction((wanted) => document.documentElement.getAttribute("data-theme") === wanted, theme);
    await expect(seriousViolations(page)).resolves.toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, `a11y-setup-${language}-${theme}.png`) });
  });
});
