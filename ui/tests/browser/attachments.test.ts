// The built UI in headless Chromium against the chat mock backend: attaching images and files to the composer
// (the file input, paste and drop), what is refused and why (type by the bytes, size, count, a scan), a hostile
// file name shown as text, the notice for a model that does not read images, what the prompt carries and how
// the sent message shows it; and each answer's tokens and cost, the conversation's totals and the context meter.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import type { Usage } from "../../src/ipc/wire";
import { assistantMessage, event, runEnd, runStart, update } from "../../src/state/__fixtures__/builders";
import { RunDriver, chatMockBackendScript } from "./chat-support";
import { launchChromium, type Browser } from "./support/browser";
import { DIST_DIR, serveDist, type StaticServer } from "./support/static-server";

const ARTIFACTS = resolve(DIST_DIR, "..", "..", "artifacts");
/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
const PROGRAM = Buffer.from("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00", "latin1");

let server: StaticServer;
let browser: Browser;
let page: Page;
let run: RunDriver;
let problems: string[];

declare global {
  interface Window {
    __attachmentCspViolations: string[];
    __pwned?: boolean;
  }
}

beforeAll(async () => {
  if (!existsSync(join(DIST_DIR, "index.html"))) {
    throw new Error(`${DIST_DIR}/index.html is missing: run \`npm run build\` in ui/ first`);
  }
  await mkdir(ARTIFACTS, { recursive: true });
  server = await serveDist();
  browser = await launchChromium();
  await browser.context.addInitScript({ content: await chatMockBackendScript() });
  await browser.context.addInitScript(() => {
    window.__attachmentCspViolations = [];
    document.addEventListener("securitypolicyviolation", (violation) => {
      window.__attachmentCspViolations.push(`${violation.violatedDirective} ${violation.blockedURI}`);
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
  await page.setViewportSize({ width: 1100, height: 760 });
  // A step that cannot happen fails within the test's time, naming the step.
  page.setDefaultTimeout(10_000);
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console: ${message.text()}`);
  });
  await page.goto(server.url);
  await page.getByTestId("composer-input").waitFor();
  run = new RunDriver(page);
});

afterEach(async () => {
  expect(await page.evaluate(() => window.__attachmentCspViolations)).toEqual([]);
  expect(problems).toEqual([]);
  await page.close();
});

async function attach(...files: { name: string; mimeType: string; buffer: Buffer }[]): Promise<void> {
  await page.getByTestId("attach-input").setInputFiles(files);
}

const chips = () => page.getByTestId("attachment-chip");

async function promptCalls(): Promise<Record<string, unknown>[]> {
  return page.evaluate(() => window.__chatMock.calls.filter((call) => call.cmd === "prompt").map((call) => call.args));
}

function usage(input: number, output: number, cacheRead: number, cost: number): Usage {
  return {
    input,
    output,
    cacheRead,
    cacheWrite: 0,
    totalTokens: input + output + cacheRead,
    cost: { input: cost, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
  };
}

/** One answered run of `prompt` whose answer reports `reported`. */
async function answered(prompt: string, text: string, reported: Usage): Promise<void> {
  await page.getByTestId("composer-input").fill(prompt);
  await page.getByTestId("composer-input").press("Enter");
  await run.waitForRun();
  await run.send(
    ...runStart(prompt),
    event({ type: "message_start", message: assistantMessage([], "pending") }),
    update({ type: "text_start", contentIndex: 0, block: { type: "text", text: "" } }),
    update({ type: "text_delta", contentIndex: 0, delta: text }),
    event({ type: "message_end", message: { ...assistantMessage([{ type: "text", text }], "stop"), usage: reported } }),
    ...runEnd(),
  );
  await page.locator('[data-testid="run-status"][data-state="idle"]').waitFor();
}

describe("attachments", () => {
  it("shows a picked image as a chip with a preview, removes it, and sends image and file with the prompt", async () => {
    await attach({ name: "screenshot.png", mimeType: "image/png", buffer: PNG });
    await page.locator('[data-testid="attachment-chip"][data-kind="image"][data-state="ready"] img').waitFor();
    await page.getByTestId("attachment-remove").click();
    await expect(chips().count()).resolves.toBe(0);

    await attach(
      { name: "screenshot.png", mimeType: "image/png", buffer: PNG },
      { name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from("# Notes\nShip on Friday.") },
    );
    await page.locator('[data-testid="attachment-chip"][data-kind="file"][data-state="ready"]').waitFor();
    await page.locator('[data-testid="attachment-chip"][data-kind="image"][data-state="ready"]').waitFor();
    await page.getByTestId("composer-input").fill("What is on the screen?");
    await page.screenshot({ path: join(ARTIFACTS, "attachments-composer.png") });
    await page.getByTestId("send-button").click();

    await run.waitForRun();
    const [call] = await promptCalls();
    expect(call).toEqual({
      text: "What is on the screen?",
      images: [{ data: PNG.toString("base64"), mimeType: "image/png" }],
      files: [{ name: "notes.md", text: "# Notes\nShip on Friday." }],
    });
    await expect(chips().count()).resolves.toBe(0);
    await page.getByTestId("user-attachment-image").waitFor();
    await expect(page.getByTestId("user-attachment-file").textContent()).resolves.toBe("notes.md");
  });

  it("sends attachments without text", async () => {
    await attach({ name: "plan.txt", mimeType: "text/plain", buffer: Buffer.from("step one") });
    await page.locator('[data-testid="attachment-chip"][data-state="ready"]').waitFor();
    await page.getByTestId("send-button").click();
    await run.waitForRun();
    expect(await promptCalls()).toEqual([{ text: "", files: [{ name: "plan.txt", text: "step one" }] }]);
  });

  it("refuses a program renamed .png, an image over 10 MB and a scanned PDF, keeping the typed text", async () => {
    await page.getByTestId("composer-input").fill("Look at these");
    await attach(
      { name: "holiday.png", mimeType: "image/png", buffer: PROGRAM },
      { name: "huge.png", mimeType: "image/png", buffer: Buffer.alloc(10 * 1024 * 1024 + 1, 0x89) },
      { name: "scan.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.4\n%%EOF\n") },
    );
    const error = page.getByTestId("attachment-error");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="attachment-error"] li').length === 3);
    const text = (await error.textContent()) ?? "";
    expect(text).toContain("huge.png is larger than 10 MB");
    expect(text).toContain("holiday.png is not a PNG, JPEG, GIF or WebP image");
    expect(text).toContain("scan.pdf: The PDF has no text layer");
    await expect(chips().count()).resolves.toBe(0);
    await expect(page.getByTestId("composer-input").inputValue()).resolves.toBe("Look at these");
  });

  it("takes at most eight images", async () => {
    const nine = Array.from({ length: 9 }, (_, index) => ({ name: `shot-${index}.png`, mimeType: "image/png", buffer: PNG }));
    await attach(...nine);
    await page.getByTestId("attachment-error").waitFor();
    await expect(page.getByTestId("attachment-error").textContent()).resolves.toContain("at most 8 images");
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="attachment-chip"][data-state="ready"]').length === 8);
  });

  it("shows a hostile file name as text, in the chip and in the sent message", async () => {
    const name = '<img src=x onerror="window.__pwned=true">.md';
    await attach({ name, mimeType: "text/markdown", buffer: Buffer.from("hello") });
    await page.locator('[data-testid="attachment-chip"][data-state="ready"]').waitFor();
    await expect(page.getByTestId("attachment-name").textContent()).resolves.toBe(name);
    await page.getByTestId("send-button").click();
    await run.waitForRun();
    await expect(page.getByTestId("user-attachment-file").textContent()).resolves.toBe(name);
    await expect(page.locator('img[src="x"]').count()).resolves.toBe(0);
    await expect(page.evaluate(() => window.__pwned)).resolves.toBeUndefined();
  });

  it("takes images pasted into the message box", async () => {
    await page.getByTestId("composer-input").evaluate((box, base64) => {
      const bytes = Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], "pasted.png", { type: "image/png" }));
      box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
    }, PNG.toString("base64"));
    await page.locator('[data-testid="attachment-chip"][data-kind="image"][data-state="ready"]').waitFor();
  });

  it("says before sending that a model without image input cannot take the images, and Send stays off", async () => {
    await page.evaluate(() => {
      window.__chatMock.model = { ...window.__chatMock.model, id: "gpt-4.1-mini", imageInput: false };
    });
    await page.getByTestId("new-conversation-button").click();
    await page.getByTestId("composer-input").fill("What is this?");
    await attach({ name: "photo.png", mimeType: "image/png", buffer: PNG });

    await page.getByTestId("attachment-notice").waitFor();
    await expect(page.getByTestId("attachment-notice").textContent()).resolves.toContain("gpt-4.1-mini does not read images");
    await expect(page.getByTestId("send-button").isDisabled()).resolves.toBe(true);
    await page.getByTestId("attachment-remove").click();
    await expect(page.getByTestId("attachment-notice").count()).resolves.toBe(0);
    await expect(page.getByTestId("send-button").isDisabled()).resolves.toBe(false);
  });
});

describe("usage and cost", () => {
  it("shows each answer's tokens and cost, totals that add each call once, and the context meter", async () => {
    await answered("First question", "First answer.", usage(1000, 100, 0, 0.0125));
    const first = page.getByTestId("answer-usage").first();
    await expect(first.getByTestId("usage-input").textContent()).resolves.toBe("in 1,000");
    await expect(first.getByTestId("usage-output").textContent()).resolves.toBe("out 100");
    await expect(first.getByTestId("usage-cost").textContent()).resolves.toBe("$0.0125");

    await answered("Second question", "Second answer.", usage(200, 50, 1000, 0.005));
    const second = page.getByTestId("answer-usage").nth(1);
    await expect(second.getByTestId("usage-cache").textContent()).resolves.toBe("cache read 1,000 · cache write 0");
    await expect(page.getByTestId("conversation-usage").textContent()).resolves.toBe(
      "Total: in 1,200 · out 150 · cache read 1,000 · cache write 0 · $0.0175 (2 calls)",
    );
    // The conversation's size: the last call's context and output, not 1,100 + 1,250.
    await expect(page.getByTestId("tokens-used").textContent()).resolves.toBe("1,250 tokens");
    await expect(page.getByTestId("context-meter").getAttribute("data-level")).resolves.toBe("ok");
  });

  it("says the cost is unknown for a model without a price", async () => {
    await answered("Hello", "Hi.", usage(40, 5, 0, 0));
    await expect(page.getByTestId("usage-cost").textContent()).resolves.toBe("cost unknown");
    await expect(page.getByTestId("conversation-cost").textContent()).resolves.toBe("cost unknown");
  });

  it("warns when the last request filled 80% of the context window", async () => {
    await page.evaluate(() => {
      window.__chatMock.model = { ...window.__chatMock.model, contextWindow: 10_000 };
    });
    await page.getByTestId("new-conversation-button").click();
    await answered("A long one", "Done.", usage(7000, 100, 1500, 0.01));
    const meter = page.getByTestId("context-meter");
    await page.locator('[data-testid="context-meter"][data-level="warn"]').waitFor();
    await expect(meter.textContent()).resolves.toContain("context 85% (8,500 / 10,000)");
    await expect(page.getByTestId("context-warning").textContent()).resolves.toContain("nearly fills the model's context window");
    await page.screenshot({ path: join(ARTIFACTS, "usage-context-warning.png") });
  });
});
