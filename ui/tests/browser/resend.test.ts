// The built UI in headless Chromium against the chat mock backend: a prompt the host refuses to start keeps its
// text on the message, and Resend sends that text again.
import { existsSync } from "node:fs";
import { join } from "node:path";

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { chatMockBackendScript } from "./chat-support";
import { launchChromium, type Browser } from "./support/browser";
import { DIST_DIR, serveDist, type StaticServer } from "./support/static-server";

let server: StaticServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!existsSync(join(DIST_DIR, "index.html"))) {
    throw new Error(`${DIST_DIR}/index.html is missing: run \`npm run build\` in ui/ first`);
  }
  server = await serveDist();
  browser = await launchChromium();
  await browser.context.addInitScript({ content: await chatMockBackendScript() });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

beforeEach(async () => {
  page = await browser.context.newPage();
  await page.goto(server.url);
  await page.getByTestId("composer-input").waitFor();
});

afterEach(async () => {
  await page.close();
});

describe("a prompt that fails to start", () => {
  it("keeps its text on the message, and Resend sends it again", async () => {
    await page.evaluate(() => {
      window.__chatMock.nextRunRejection = { kind: "provider", code: "model_setup", detail: "no API key for openai" };
    });
    await page.getByTestId("composer-input").fill("Which PDFs are in Downloads?");
    await page.getByTestId("send-button").click();

    await page.locator('[data-testid="message-user"][data-delivery="failed"]').waitFor();
    await expect(page.getByTestId("message-user").textContent()).resolves.toBe("Which PDFs are in Downloads?");
    await page.getByTestId("resend-button").click();

    await page.waitForFunction(() => window.__chatMock.hasRun());
    const prompts = await page.evaluate(() =>
      window.__chatMock.calls.filter((call) => call.cmd === "prompt").map((call) => call.args["text"]),
    );
    expect(prompts).toEqual(["Which PDFs are in Downloads?", "Which PDFs are in Downloads?"]);
    await expect(page.getByTestId("resend-button").count()).resolves.toBe(0);
  });
});
