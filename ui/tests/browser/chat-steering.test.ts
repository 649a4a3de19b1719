// Steering and follow-ups in the built UI (headless Chromium, the chat mock backend plus the queue's commands):
// during a run Enter and Alt+Enter queue chips above the composer while Send stays disabled, Cancel removes one,
// a consumed one moves into the transcript where the loop put it, Stop leaves the rest held with Send now and
// Discard, the settings show the two queue modes; in English and Chinese. Screenshots go to artifacts/.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { assistantMessage, event, notice, runEnd, runStart, update, userMessage } from "../../src/state/__fixtures__/builders";
import { RunDriver, chatMockBackendScript } from "./chat-support";
import { launchChromium, type Browser } from "./support/browser";
import { DIST_DIR, serveDist, type StaticServer } from "./support/static-server";
import { collectProblems } from "./support/page-problems";

const ARTIFACTS = resolve(DIST_DIR, "..", "..", "artifacts");

/**
 * The queue's commands on top of the chat mock backend, as the host answers them: `steer` and `follow_up` queue
 * a message and send its `message_queued` on the window's stream, `cancel_queued` sends the cancellation, and the
 * queue settings are kept in the page. Every call is recorded with the chat mock's.
 */
const QUEUE_COMMANDS = `
(() => {
  const internals = window.__TAURI_INTERNALS__;
  const chatInvoke = internals.invoke;
  let nextId = 1;
  let settings = { steeringMode: "one_at_a_time", followUpMode: "one_at_a_time" };
  internals.invoke = async (cmd, args, options) => {
    switch (cmd) {
      case "steer":
      case "follow_up": {
        window.__chatMock.calls.push({ cmd, args });
        const message = { id: nextId++, kind: cmd, text: args.text, status: "waiting" };
        window.__chatMock.send({ v: 1, kind: "notice", notice: { type: "message_queued", message } });
        return message;
      }
      case "cancel_queued":
        window.__chatMock.calls.push({ cmd, args });
        window.__chatMock.send({ v: 1, kind: "notice", notice: { type: "queued_message_cancelled", id: args.id } });
        return null;
      case "queue_settings":
        return settings;
      case "save_queue_settings":
        window.__chatMock.calls.push({ cmd, args });
        settings = args.settings;
        return settings;
      default:
        return chatInvoke(cmd, args, options);
    }
  };
})();
`;

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
  // One script, so the queue's commands wrap the chat mock after it is installed.
  await browser.context.addInitScript({ content: `${await chatMockBackendScript()}\n${QUEUE_COMMANDS}` });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(language: "en" | "zh"): Promise<void> {
  problems = [];
  page = await browser.context.newPage();
  if (language === "zh") {
    await page.addInitScript(() => {
      Object.defineProperty(navigator, "languages", { get: () => ["zh-CN"] });
      Object.defineProperty(navigator, "language", { get: () => "zh-CN" });
    });
  }
  await page.setViewportSize({ width: 1100, height: 760 });
  // Every step here takes milliseconds; a step that waits longer fails on its own line.
  page.setDefaultTimeout(10_000);
  collectProblems(page, problems);
  await page.goto(server.url);
  await page.getByTestId("composer-input").waitFor();
  run = new RunDriver(page);
}

beforeEach(() => {
  problems = [];
});

afterEach(async () => {
  expect(problems).toEqual([]);
  await page.close();
});

const chips = () => page.getByTestId("queued-message");

async function calls(cmd: string): Promise<unknown[]> {
  return page.evaluate(
    (name) => window.__chatMock.calls.filter((call) => call.cmd === name).map((call) => call.args),
    cmd,
  );
}

/** A prompt whose answer is still streaming. */
async function streaming(prompt: string, partial: string): Promise<void> {
  await page.getByTestId("composer-input").fill(prompt);
  await page.getByTestId("composer-input").press("Enter");
  await run.waitForRun();
  await run.send(
    ...runStart(prompt),
    event({ type: "message_start", message: assistantMessage([], "pending") }),
    update({ type: "text_start", contentIndex: 0 }),
    update({ type: "text_delta", contentIndex: 0, delta: partial }),
  );
  await page.getByTestId("steer-button").waitFor({ timeout: 5000 });
}

async function queueBy(key: "Enter" | "Alt+Enter", text: string): Promise<void> {
  const before = await chips().count();
  await page.getByTestId("composer-input").fill(text);
  await page.getByTestId("composer-input").press(key);
  await page.waitForFunction(
    (count) => document.querySelectorAll('[data-testid="queued-message"]').length > count,
    before,
    { timeout: 5000 },
  );
}

for (const language of ["en", "zh"] as const) {
  describe(`steering and follow-ups (${language})`, () => {
    it("queues chips during a run, cancels one, and shows a consumed one where the loop put it", async () => {
      await open(language);
      await streaming("List the PDFs in my Downloads", "I am looking in your Downloads folder…");

      await queueBy("Enter", language === "zh" ? "只要 2024 年的" : "only the ones from 2024");
      await queueBy("Alt+Enter", language === "zh" ? "然后算一下总大小" : "then add up their sizes");
      await queueBy("Enter", language === "zh" ? "算了，这条不要" : "never mind this one");
      await expect(page.getByTestId("send-button").isDisabled()).resolves.toBe(true);
      expect(await chips().evaluateAll((items) => items.map((item) => item.getAttribute("data-kind")))).toEqual([
        "steer",
        "follow_up",
        "steer",
      ]);
      expect(await calls("steer")).toHaveLength(2);
      expect(await calls("follow_up")).toHaveLength(1);
      await page.getByTestId("composer-input").fill(language === "zh" ? "也看看桌面" : "look on the Desktop too");
      await page.locator(".composer-area").screenshot({ path: join(ARTIFACTS, `queued-chips-${language}.png`) });
      await page.screenshot({ path: join(ARTIFACTS, `queued-chips-window-${language}.png`) });

      await chips().nth(2).getByTestId("queued-cancel").click();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="queued-message"]').length === 2);
      expect(await calls("cancel_queued")).toEqual([{ conversationId: "c-1", id: 3 }]);

      // The loop injects the steering message after the answer: the chip goes, the message is in the transcript.
      const steer = userMessage(language === "zh" ? "只要 2024 年的" : "only the ones from 2024");
      await run.send(
        event({ type: "message_end", message: assistantMessage([{ type: "text", text: "I am looking in your Downloads folder…" }], "stop") }),
        event({ type: "turn_end", message: assistantMessage([], "stop"), toolResults: [] }),
        event({ type: "turn_start" }),
        event({ type: "message_start", message: steer }),
        notice({ type: "queued_message_consumed", id: 1 }),
        event({ type: "message_end", message: steer }),
      );
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="queued-message"]').length === 1);
      const users = await page.getByTestId("message-user").allTextContents();
      expect(users).toEqual(["List the PDFs in my Downloads", language === "zh" ? "只要 2024 年的" : "only the ones from 2024"]);

      // Stop: what was not delivered is held, with Send now and Discard.
      await page.getByTestId("stop-button").click();
      await run.send(notice({ type: "queued_messages_held", ids: [2] }), ...runEnd("Request was aborted"));
      await page.locator('[data-testid="queued-message"][data-status="held"]').waitFor();
      await expect(page.getByTestId("send-button").isEnabled()).resolves.toBe(true);
      await expect(chips().getByTestId("queued-send").isEnabled()).resolves.toBe(true);
      await expect(chips().getByTestId("queued-discard").textContent()).resolves.toBe(
        language === "zh" ? "丢弃" : "Discard",
      );
      await page.screenshot({ path: join(ARTIFACTS, `queued-held-${language}.png`) });
    });

    it("shows the two queue modes in the settings and saves a change", async () => {
      await open(language);
      await page.getByTestId("settings-button").click();
      const section = page.getByTestId("queue-settings");
      await section.scrollIntoViewIfNeeded();
      await expect(section.getByTestId("steering-mode").inputValue()).resolves.toBe("one_at_a_time");
      await section.getByTestId("follow-up-mode").selectOption("all");
      await page.waitForFunction(() => window.__chatMock.calls.some((call) => call.cmd === "save_queue_settings"));
      expect(await calls("save_queue_settings")).toEqual([
        { settings: { steeringMode: "one_at_a_time", followUpMode: "all" } },
      ]);
      await expect(section.locator("h3").textContent()).resolves.toBe(
        language === "zh" ? "引导与后续消息" : "Steering and follow-ups",
      );
      await section.screenshot({ path: join(ARTIFACTS, `queue-settings-${language}.png`) });
    });
  });
}
