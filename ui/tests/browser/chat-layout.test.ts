// The built UI in headless Chromium against the mock backend: the chat layout a user first sees.
import { existsSync } from "node:fs";
import { join } from "node:path";

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { launchChromium, type Browser } from "./support/browser";
import { mockBackendScript } from "./support/mock-backend-bundle";
import { DIST_DIR, serveDist, type StaticServer } from "./support/static-server";

let server: StaticServer;
let browser: Browser;
let page: Page;
let problems: string[];

declare global {
  interface Window {
    __piCspViolations: string[];
  }
}

beforeAll(async () => {
  if (!existsSync(join(DIST_DIR, "index.html"))) {
    throw new Error(`${DIST_DIR}/index.html is missing: run \`npm run build\` in ui/ first`);
  }
  server = await serveDist();
  browser = await launchChromium();
  await browser.context.addInitScript({ content: await mockBackendScript() });
  await browser.context.addInitScript(() => {
    window.__piCspViolations = [];
    document.addEventListener("securitypolicyviolation", (event) => {
      window.__piCspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

beforeEach(async () => {
  problems = [];
  page = await browser.context.newPage();
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  await page.goto(server.url);
  await page.getByTestId("composer-input").waitFor();
});

afterEach(async () => {
  await page.close();
});

async function ipcCommands(): Promise<string[]> {
  return page.evaluate(() => window.__piIpcCalls.map((call) => call.cmd));
}

describe("chat layout", () => {
  it("opens idle with an empty composer, Send enabled and Stop disabled", async () => {
    await expect(page.getByTestId("run-status").getAttribute("data-state")).resolves.toBe("idle");
    await expect(page.getByTestId("composer-input").inputValue()).resolves.toBe("");
    await expect(page.getByTestId("send-button").isEnabled()).resolves.toBe(true);
    await expect(page.getByTestId("stop-button").isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId("settings-button").isVisible()).resolves.toBe(true);
    expect(problems).toEqual([]);
  });

  it("asks the backend for app_info and shows the version it returns", async () => {
    await page.getByTestId("app-title").filter({ hasText: "0.0.0-browser-test" }).waitFor();
    expect(await ipcCommands()).toContain("app_info");
  });

  it("adds the sent text to the conversation and clears the composer", async () => {
    await page.getByTestId("composer-input").fill("What is on my desktop?");
    await page.getByTestId("send-button").click();

    await page.getByTestId("message-user").first().waitFor();
    await expect(page.getByTestId("message-user").allTextContents()).resolves.toEqual(["What is on my desktop?"]);
    await expect(page.getByTestId("composer-input").inputValue()).resolves.toBe("");
    await expect(page.getByTestId("run-status").getAttribute("data-state")).resolves.toBe("idle");
  });

  it("sends on Enter and keeps Shift+Enter as a new line", async () => {
    const input = page.getByTestId("composer-input");
    await input.fill("first line");
    await input.press("Shift+Enter");
    await input.pressSequentially("second line");
    await expect(page.getByTestId("message-user").count()).resolves.toBe(0);

    await input.press("Enter");

    await page.getByTestId("message-user").first().waitFor();
    await expect(page.getByTestId("message-user").allTextContents()).resolves.toEqual(["first line\nsecond line"]);
  });

  it("runs under the app's strict CSP without a violation, and the CSP is in force", async () => {
    await page.getByTestId("app-title").filter({ hasText: "0.0.0-browser-test" }).waitFor();
    await expect(page.evaluate(() => window.__piCspViolations)).resolves.toEqual([]);

    // A control: an inline style is something the CSP forbids, so it must be reported.
    await page.evaluate(() => {
      const style = document.createElement("style");
      style.textContent = "body { outline: 1px solid red; }";
      document.head.append(style);
    });
    await page.waitForFunction(() => window.__piCspViolations.length > 0);
    await expect(page.evaluate(() => window.__piCspViolations)).resolves.toEqual([
      expect.stringMatching(/^style-src/),
    ]);
  });
});
