// The built UI in headless Chromium with nothing configured (./setup-mock-backend.ts): the empty conversation is
// the setup card, Send is disabled with the reason beside it, and a custom server tested and chosen makes the
// model picker appear in the header. Screenshots in English and Chinese go to artifacts/.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { launchChromium, type Browser } from "./support/browser";
import { DIST_DIR, serveDist, type StaticServer } from "./support/static-server";

const ARTIFACTS = resolve(DIST_DIR, "..", "..", "artifacts");

let server: StaticServer;
let browser: Browser;
let page: Page;
let problems: string[];

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
  if (!existsSync(join(DIST_DIR, "index.html"))) {
    throw new Error(`${DIST_DIR}/index.html is missing: run \`npm run build\` in ui/ first`);
  }
  server = await serveDist();
  browser = await launchChromium();
  await browser.context.addInitScript({ content: await setupBackendScript() });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

beforeEach(async () => {
  problems = [];
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1100, height: 800 });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
});

afterEach(async () => {
  await page.close();
});

describe.each(["en", "zh"] as const)("first run with nothing configured (%s)", (language) => {
  it("shows the setup card, keeps Send disabled with the reason, and keeps what was typed", async () => {
    await page.goto(`${server.url}?lang=${language}`);
    await page.getByTestId("setup-card").waitFor();
    await page.getByTestId("send-blocked-reason").waitFor();

    await expect(page.getByTestId("send-button").isDisabled()).resolves.toBe(true);
    await page.getByTestId("composer-input").fill(language === "zh" ? "下载文件夹里有什么？" : "What is in Downloads?");
    await page.getByTestId("composer-input").press("Enter");
    await expect(page.getByTestId("composer-input").inputValue()).resolves.not.toBe("");
    await expect(page.getByTestId("message-user").count()).resolves.toBe(0);
    const presets = await page.getByTestId("setup-preset").locator("option").allTextContents();
    expect(presets).toContain(language === "zh" ? "自定义（OpenAI 兼容）" : "Custom, OpenAI-compatible");
    await page.screenshot({ path: join(ARTIFACTS, `setup-card-${language}.png`) });
    expect(problems).toEqual([]);
  });

  it("tests a custom server, lists its models, and Done brings the model picker", async () => {
    await page.goto(`${server.url}?lang=${language}`);
    await page.getByTestId("setup-card").waitFor();
    await page.getByTestId("setup-preset").selectOption("custom");
    await page.getByTestId("setup-base-url").fill("http://127.0.0.1:9000/v1");
    await page.getByTestId("setup-api-key").fill("sk-house");
    await page.getByTestId("setup-card").getByTestId("test-connection").click();
    await page.getByTestId("connection-report").waitFor();
    await expect(page.getByTestId("setup-model-option").allTextContents()).resolves.toEqual([
      "house-model",
      "house-model-small",
    ]);
    await page.getByTestId("setup-model").selectOption("house-model-small");
    await page.screenshot({ path: join(ARTIFACTS, `setup-card-tested-${language}.png`) });

    await page.getByTestId("setup-done").click();
    await page.getByTestId("model-picker").waitFor();

    await expect(page.getByTestId("setup-card").count()).resolves.toBe(0);
    await expect(page.getByTestId("send-blocked-reason").count()).resolves.toBe(0);
    await expect(page.getByTestId("model-picker").inputValue()).resolves.toBe("house-model-small");
    const calls = await page.evaluate(() => window.__setupCalls.map((call) => call.cmd));
    expect(calls.indexOf("set_api_key")).toBeLessThan(calls.indexOf("save_settings"));
    const keyCall = await page.evaluate(() => window.__setupCalls.find((call) => call.cmd === "set_api_key")?.args);
    expect(keyCall).toEqual({ key: "sk-house", preset: "custom" });
    await page.screenshot({ path: join(ARTIFACTS, `setup-done-${language}.png`) });
    expect(problems).toEqual([]);
  });
});
