// The built UI in headless Chromium against a mock backend that the test drives envelope by envelope:
// streaming, the running → settling → idle gate on Send, Stop, IME composition, tool cards, errors, safety.
// Screenshots go to artifacts/ at the repository root (gitignored).
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import {
  assistantMessage,
  event,
  notice,
  runEnd,
  runStart,
  update,
} from "../../src/state/__fixtures__/builders";
import { RunDriver, chatMockBackendScript, ipcCommands } from "./chat-support";
import { launchChromium, type Browser } from "./support/browser";
import { DIST_DIR, serveDist, type StaticServer } from "./support/static-server";
import { collectProblems } from "./support/page-problems";

const ARTIFACTS = resolve(DIST_DIR, "..", "..", "artifacts");

let server: StaticServer;
let browser: Browser;
let page: Page;
let run: RunDriver;
let problems: string[];

declare global {
  interface Window {
    __chatCspViolations: string[];
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
    window.__chatCspViolations = [];
    document.addEventListener("securitypolicyviolation", (violation) => {
      window.__chatCspViolations.push(`${violation.violatedDirective} ${violation.blockedURI}`);
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
  collectProblems(page, problems);
  await page.goto(server.url);
  await page.getByTestId("composer-input").waitFor();
  run = new RunDriver(page);
});

afterEach(async () => {
  expect(await page.evaluate(() => window.__chatCspViolations)).toEqual([]);
  expect(problems).toEqual([]);
  await page.close();
});

async function sendPrompt(text: string): Promise<void> {
  await page.getByTestId("composer-input").fill(text);
  await page.getByTestId("composer-input").press("Enter");
  await run.waitForRun();
}

/** Waits until the last assistant message's visible text is exactly `text`. */
async function waitForAnswerText(text: string): Promise<void> {
  await page.waitForFunction((expected) => {
    const answers = document.querySelectorAll('[data-testid="message-assistant"] [data-testid="assistant-text"]');
    const last = answers[answers.length - 1];
    return last !== undefined && (last.textContent ?? "").trim() === expected;
  }, text);
}

const FILES = [
  { name: "Quarterly report 2024.pdf", relativePath: "Quarterly report 2024.pdf", size: 2_411_724, modifiedMs: Date.UTC(2024, 10, 28, 9, 14), kind: "pdf" },
  { name: "invoice-1042.pdf", relativePath: "invoice-1042.pdf", size: 184_320, modifiedMs: Date.UTC(2024, 10, 26, 16, 2), kind: "pdf" },
  { name: "holiday-photos", relativePath: "holiday-photos", size: 0, modifiedMs: Date.UTC(2024, 10, 20, 8, 40), kind: "folder" },
  { name: "notes.md", relativePath: "notes.md", size: 3_912, modifiedMs: Date.UTC(2024, 10, 19, 21, 5), kind: "text" },
  { name: "setup.dmg", relativePath: "setup.dmg", size: 98_566_144, modifiedMs: Date.UTC(2024, 9, 2, 11, 0), kind: "other" },
];

const LIST_CALL = {
  type: "toolCall" as const,
  id: "call_list_1",
  name: "list_download_files",
  arguments: { extensions: ["pdf"], sort: "newest" },
};

/** A whole tool run: the assistant calls list_download_files, the tool runs and returns the file list. */
async function streamToolRun(): Promise<void> {
  await run.send(
    ...runStart("Which PDFs are in my Downloads?"),
    event({ type: "message_start", message: assistantMessage([], "pending") }),
    update({ type: "toolcall_start", contentIndex: 0, block: { ...LIST_CALL, arguments: {} } }),
    update({ type: "toolcall_delta", contentIndex: 0, delta: '{"extensions":["pdf"],' }),
    update({ type: "toolcall_delta", contentIndex: 0, delta: '"sort":"newest"}' }),
    update({ type: "toolcall_end", contentIndex: 0, toolCall: LIST_CALL }),
    event({ type: "message_end", message: assistantMessage([LIST_CALL], "toolUse", { totalTokens: 812 }) }),
    event({ type: "tool_execution_start", toolCallId: LIST_CALL.id, toolName: LIST_CALL.name, args: LIST_CALL.arguments }),
    notice({ type: "state", isStreaming: true, pendingToolCalls: [LIST_CALL.id] }),
    event({
      type: "tool_execution_end",
      toolCallId: LIST_CALL.id,
      toolName: LIST_CALL.name,
      result: {
        content: [{ type: "text", text: "{...}" }],
        details: { folder: "downloads", path: "", entries: FILES, totalMatched: FILES.length, scanned: 40, skipped: 0, scanTruncated: false, nextCursor: null },
      },
      isError: false,
    }),
    notice({ type: "state", isStreaming: true, pendingToolCalls: [] }),
  );
}

const RICH_ANSWER = [
  "You have **two PDFs** in Downloads, newest first:",
  "",
  "1. *Quarterly report 2024.pdf* (2.3 MB, 28 Nov)",
  "2. *invoice-1042.pdf* (180 KB, 26 Nov)",
  "",
  "To find them again from a terminal:",
  "",
  "```bash",
  "ls -lt ~/Downloads/*.pdf | head -n 2",
  "```",
  "",
  "The setup image `setup.dmg` takes 94 MB; you could remove it.",
].join("\n");

async function streamRichAnswer(): Promise<void> {
  await run.send(
    event({ type: "turn_end", message: assistantMessage([LIST_CALL], "toolUse"), toolResults: [] }),
    event({ type: "turn_start" }),
    event({ type: "message_start", message: assistantMessage([], "pending") }),
    update({ type: "thinking_start", contentIndex: 0, block: { type: "thinking", thinking: "" } }),
    update({ type: "thinking_delta", contentIndex: 0, delta: "The user wants PDFs only. Two entries are PDFs; sort by date." }),
  );
  // The thinking block is open and live while the model reasons, and folds away once it is done.
  await page.locator('[data-testid="thinking-block"] .thinking-body').waitFor();
  await page.screenshot({ path: join(ARTIFACTS, "chat-thinking-light.png") });
  await run.send(
    update({ type: "thinking_end", contentIndex: 0, content: "The user wants PDFs only. Two entries are PDFs; sort by date." }),
    update({ type: "text_start", contentIndex: 1, block: { type: "text", text: "" } }),
  );
  for (let start = 0; start < RICH_ANSWER.length; start += 24) {
    await run.send(update({ type: "text_delta", contentIndex: 1, delta: RICH_ANSWER.slice(start, start + 24) }));
  }
  await run.send(
    update({ type: "text_end", contentIndex: 1, content: RICH_ANSWER }),
    event({
      type: "message_end",
      message: assistantMessage(
        [
          { type: "thinking", thinking: "The user wants PDFs only. Two entries are PDFs; sort by date." },
          { type: "text", text: RICH_ANSWER },
        ],
        "stop",
        { totalTokens: 1_430 },
      ),
    }),
    ...runEnd(),
  );
  await run.finish();
}

describe("chat streaming", () => {
  it("shows a streamed answer token by token", async () => {
    await sendPrompt("Say hello");
    await run.send(
      ...runStart("Say hello"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0, block: { type: "text", text: "" } }),
    );
    const tokens = ["Hello", ", ", "I am ", "Pi", ". ", "你好", "！"];
    let shown = "";
    for (const token of tokens) {
      await run.send(update({ type: "text_delta", contentIndex: 0, delta: token }));
      shown += token;
      await waitForAnswerText(shown.trim());
      await expect(page.getByTestId("message-assistant").getAttribute("data-state")).resolves.toBe("streaming");
    }
    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: join(ARTIFACTS, "chat-streaming-dark.png") });
    await run.send(
      update({ type: "text_end", contentIndex: 0, content: shown }),
      event({ type: "message_end", message: assistantMessage([{ type: "text", text: shown }], "stop", { totalTokens: 42 }) }),
      ...runEnd(),
    );
    await run.finish();
    await page.locator('[data-testid="message-assistant"][data-state="done"]').waitFor();
    await expect(page.getByTestId("message-user").allTextContents()).resolves.toEqual(["Say hello"]);
    await expect(page.getByTestId("tokens-used").textContent()).resolves.toBe("42 tokens");
  });

  it("follows the stream only while the user stays at the bottom", async () => {
    await sendPrompt("Write a lot");
    await run.send(
      ...runStart("Write a lot"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
    );
    const scroller = page.getByTestId("message-list");
    const distanceFromBottom = () =>
      scroller.evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
    const paragraphs = (from: number, count: number) =>
      Array.from({ length: count }, (_, index) => `Paragraph ${from + index} of a long answer.\n\n`).join("");

    await run.send(update({ type: "text_delta", contentIndex: 0, delta: paragraphs(0, 40) }));
    await page.getByText("Paragraph 39 of a long answer.").waitFor();
    await page.waitForFunction(() => {
      const element = document.querySelector('[data-testid="message-list"]');
      return element !== null && element.scrollHeight - element.scrollTop - element.clientHeight < 2;
    });

    await scroller.evaluate((element) => element.scrollBy(0, -400));
    const heldAt = await scroller.evaluate((element) => element.scrollTop);
    await run.send(update({ type: "text_delta", contentIndex: 0, delta: paragraphs(40, 20) }));
    await page.getByText("Paragraph 59 of a long answer.").waitFor();
    await expect(scroller.evaluate((element) => element.scrollTop)).resolves.toBe(heldAt);
    expect(await distanceFromBottom()).toBeGreaterThan(400);

    await scroller.evaluate((element) => element.scrollTo(0, element.scrollHeight));
    await run.send(update({ type: "text_delta", contentIndex: 0, delta: paragraphs(60, 20) }));
    await page.getByText("Paragraph 79 of a long answer.").waitFor();
    await page.waitForFunction(() => {
      const element = document.querySelector('[data-testid="message-list"]');
      return element !== null && element.scrollHeight - element.scrollTop - element.clientHeight < 2;
    });

    // The user reaches the bottom they see, and the answer grows before that scroll's event arrives (a busy
    // machine, a fast stream): the view follows again all the same.
    await scroller.evaluate((element) => element.scrollBy(0, -400));
    await page.waitForFunction(() => {
      const element = document.querySelector('[data-testid="message-list"]');
      return element !== null && element.scrollHeight - element.scrollTop - element.clientHeight > 300;
    });
    await scroller.evaluate((element) => {
      element.scrollTo(0, element.scrollHeight);
      const growth = document.createElement("div");
      growth.setAttribute("data-testid", "late-growth");
      growth.style.height = "1000px";
      element.querySelector(".transcript")?.append(growth);
    });
    await page.waitForFunction(() => {
      const element = document.querySelector('[data-testid="message-list"]');
      return element !== null && element.scrollHeight - element.scrollTop - element.clientHeight < 2;
    });
    await page.getByTestId("late-growth").evaluate((element) => element.remove());
    await run.send(...runEnd());
    await run.finish();
  });

  it("keeps a very long answer's DOM bounded and brings back the pages the user scrolls to", async () => {
    await sendPrompt("Write a very long answer");
    await run.send(
      ...runStart("Write a very long answer"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
    );
    // Every block that enters the answer's DOM, tails included.
    await page.evaluate(() => {
      const seen = { blocks: 0 };
      (window as unknown as { __blocksAdded: typeof seen }).__blocksAdded = seen;
      new MutationObserver((records) => {
        for (const record of records)
          for (const node of record.addedNodes)
            if (node instanceof Element && node.classList.contains("md-block")) seen.blocks += 1;
      }).observe(document.body, { childList: true, subtree: true });
    });
    const count = 36_000;
    const paragraph = (index: number) => `Paragraph ${index} of a very long answer.\n\n`;
    let text = "";
    for (let from = 0; from < count; from += 3_000) {
      const delta = Array.from({ length: 3_000 }, (_, index) => paragraph(from + index)).join("");
      text += delta;
      await run.send(update({ type: "text_delta", contentIndex: 0, delta }));
    }
    await run.send(
      update({ type: "text_end", contentIndex: 0, content: text }),
      event({ type: "message_end", message: assistantMessage([{ type: "text", text }], "stop") }),
      ...runEnd(),
    );
    await run.finish();
    await page.locator('[data-testid="message-assistant"][data-state="done"]').waitFor({ timeout: 60_000 });
    const answer = page.getByTestId("assistant-text");
    await answer.getByText(`Paragraph ${count - 1} of a very long answer.`).waitFor();

    const blocks = () =>
      page.evaluate(() => ({
        live: document.querySelectorAll(".md-page:not([data-parked]) > .md-block").length,
        parked: document.querySelectorAll(".md-page[data-parked]").length,
        pages: document.querySelectorAll(".md-page").length,
      }));
    const atEnd = await blocks();
    // 36,000 blocks in pages of 64; at most the budget (24,576) stays in the DOM.
    expect(atEnd.pages).toBeGreaterThanOrEqual(Math.floor((count - 1) / 64));
    expect(atEnd.parked).toBeGreaterThan(0);
    expect(atEnd.live).toBeLessThanOrEqual(24_576);
    expect(await page.locator(".md-page[data-parked] > *").count()).toBe(0);
    // Past the budget, pages that arrive out of reach of the viewport are made parked: their blocks never went
    // through the DOM (36,000 did before, each laid out and parked a moment later).
    const added = await page.evaluate(() => (window as unknown as { __blocksAdded: { blocks: number } }).__blocksAdded);
    expect(added.blocks).toBeLessThan(count);
    // Parked pages keep their height (the measured one, or the 600 px estimate of a page never laid out): the
    // scroll range stays that of the whole answer.
    const scroller = page.getByTestId("message-list");
    const height = await scroller.evaluate((element) => element.scrollHeight);
    expect(height).toBeGreaterThanOrEqual(atEnd.pages * 600);
    const parkedHeights = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>(".md-page[data-parked]"), (element) =>
        Number.parseFloat(element.style.height),
      ),
    );
    expect(Math.min(...parkedHeights)).toBeGreaterThanOrEqual(600);

    await scroller.evaluate((element) => element.scrollTo(0, 0));
    await answer.getByText("Paragraph 0 of a very long answer.", { exact: true }).waitFor();
    await expect(page.locator(".md-page").first().getAttribute("data-parked")).resolves.toBeNull();
    // Now the pages at the end are the far ones.
    await page.waitForFunction(() => {
      const pages = document.querySelectorAll(".md-page");
      return pages[pages.length - 2]?.hasAttribute("data-parked") === true;
    });
    expect((await blocks()).live).toBeLessThanOrEqual(24_576);
    expect(await scroller.evaluate((element) => element.scrollTop)).toBe(0);
  });

  it("keeps Send disabled through agent_end and enables it only at the idle notice", async () => {
    await expect(page.getByTestId("send-button").isEnabled()).resolves.toBe(true);
    await sendPrompt("Count to three");
    await expect(page.getByTestId("send-button").isDisabled()).resolves.toBe(true);

    await run.send(
      ...runStart("Count to three"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
      update({ type: "text_delta", contentIndex: 0, delta: "1, 2, 3" }),
      event({ type: "message_end", message: assistantMessage([{ type: "text", text: "1, 2, 3" }], "stop") }),
    );
    await page.locator('[data-testid="run-status"][data-state="running"]').waitFor();
    await expect(page.getByTestId("send-button").isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId("stop-button").isEnabled()).resolves.toBe(true);

    await run.send(event({ type: "agent_end", messages: [] }), notice({ type: "state", isStreaming: false, pendingToolCalls: [] }));
    await page.locator('[data-testid="run-status"][data-state="settling"]').waitFor();
    await expect(page.getByTestId("send-button").isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId("stop-button").isVisible()).resolves.toBe(true);

    await run.send(notice({ type: "idle" }));
    await page.locator('[data-testid="run-status"][data-state="idle"]').waitFor();
    await expect(page.getByTestId("send-button").isEnabled()).resolves.toBe(true);
    await expect(page.getByTestId("stop-button").isDisabled()).resolves.toBe(true);
    await expect(page.getByTestId("stop-button").isHidden()).resolves.toBe(true);
    await run.finish();
  });

  it("Stop and Esc call abort, and the stopped answer offers Retry through continue_run", async () => {
    await sendPrompt("Write a long story");
    await run.send(
      ...runStart("Write a long story"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
      update({ type: "text_delta", contentIndex: 0, delta: "Once upon a time" }),
    );
    await page.getByTestId("stop-button").click();
    await page.keyboard.press("Escape");
    await expect(ipcCommands(page).then((commands) => commands.filter((command) => command === "abort"))).resolves.toEqual([
      "abort",
      "abort",
    ]);

    await run.send(
      event({
        type: "message_end",
        message: assistantMessage([{ type: "text", text: "Once upon a time" }], "aborted", { errorMessage: "Request was aborted" }),
      }),
      ...runEnd("Request was aborted"),
    );
    await run.finish();
    await page.locator('[data-testid="message-assistant"][data-state="stopped"]').waitFor();
    await page.getByTestId("retry-button").click();
    await run.waitForRun();
    expect((await ipcCommands(page)).at(-1)).toBe("continue_run");
    await expect(page.getByTestId("retry-button").count()).resolves.toBe(0);
    await expect(page.getByTestId("send-button").isDisabled()).resolves.toBe(true);
    await run.send(event({ type: "agent_start" }), ...runEnd());
    await run.finish();
    await page.locator('[data-testid="run-status"][data-state="idle"]').waitFor();
  });

  it("never sends on Enter while an input method is composing", async () => {
    const input = page.getByTestId("composer-input");
    await input.fill("你好");
    // Chinese input: Enter confirms the composition (isComposing, keyCode 229), in Chromium's order and in
    // WebKit's (compositionend first, then a keydown with keyCode 229).
    await input.evaluate((element) => {
      element.dispatchEvent(new CompositionEvent("compositionstart", { bubbles: true, data: "" }));
      element.dispatchEvent(
        new KeyboardEvent("keydown", { key: "Enter", code: "Enter", keyCode: 229, isComposing: true, bubbles: true, cancelable: true }),
      );
      element.dispatchEvent(new CompositionEvent("compositionend", { bubbles: true, data: "你好" }));
      element.dispatchEvent(
        new KeyboardEvent("keydown", { key: "Enter", code: "Enter", keyCode: 229, isComposing: false, bubbles: true, cancelable: true }),
      );
    });
    expect(await ipcCommands(page)).not.toContain("prompt");
    await expect(input.inputValue()).resolves.toBe("你好");
    await expect(page.getByTestId("message-user").count()).resolves.toBe(0);

    await input.press("Shift+Enter");
    await input.pressSequentially("世界");
    expect(await ipcCommands(page)).not.toContain("prompt");
    await input.press("Enter");
    await run.waitForRun();
    expect(await page.evaluate(() => window.__chatMock.calls.find((call) => call.cmd === "prompt")?.args)).toEqual({
      text: "你好\n世界",
    });
    await run.send(...runStart("你好\n世界"), ...runEnd());
    await run.finish();
  });

  it("never sends on Enter during a real input-method composition (Chromium's IME via CDP)", async () => {
    const input = page.getByTestId("composer-input");
    await input.focus();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Input.imeSetComposition", { text: "nihao", selectionStart: 5, selectionEnd: 5 });
    // A key event sent by CDP bypasses the IME, so the browser's default may add a line break here (a real IME
    // consumes the Enter); what matters is that nothing is sent.
    await page.keyboard.press("Enter");
    expect(await ipcCommands(page)).not.toContain("prompt");
    await cdp.send("Input.insertText", { text: "你好" });
    await expect(input.inputValue()).resolves.toContain("你好");
    expect(await ipcCommands(page)).not.toContain("prompt");
    await page.keyboard.press("Enter");
    await run.waitForRun();
    expect(await page.evaluate(() => window.__chatMock.calls.find((call) => call.cmd === "prompt")?.args)).toEqual({
      text: "你好",
    });
    await run.send(...runStart("你好"), ...runEnd());
    await run.finish();
    await cdp.detach();
  });
});

describe("tool cards, errors and safety", () => {
  it("renders a list_download_files card with the file list, then the answer", async () => {
    await sendPrompt("Which PDFs are in my Downloads?");
    await streamToolRun();
    const card = page.locator('[data-testid="tool-card"][data-tool="list_download_files"]');
    await page.locator('[data-testid="tool-card"][data-tool="list_download_files"][data-state="done"]').waitFor();
    const rows = card.getByTestId("file-row");
    await expect(rows.count()).resolves.toBe(FILES.length);
    const first = await rows.first().locator("td").allTextContents();
    expect(first[0]).toBe("Quarterly report 2024.pdf");
    expect(first[1]).toBe("2.3 MB");
    expect(first[2]).toContain("2024");
    await expect(rows.nth(2).locator("td").nth(1).textContent()).resolves.toBe("");

    await streamRichAnswer();
    // The answer after the tool call is done once all of its text is on screen.
    await page.locator('[data-testid="message-assistant"]').nth(1).and(page.locator('[data-state="done"]')).waitFor();
    await expect(page.locator(".code-block code.hljs.language-bash").count()).resolves.toBe(1);
    await page.locator('[data-testid="run-status"][data-state="idle"]').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, "chat-light.png") });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: join(ARTIFACTS, "chat-dark.png") });
    // The window's minimum size (tauri.conf.json): nothing may spill sideways.
    await page.setViewportSize({ width: 640, height: 480 });
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(640);
    await page.screenshot({ path: join(ARTIFACTS, "chat-narrow-dark.png") });
  });

  it("renders what the real host sent for a Downloads listing (pi-chat --json recording)", async () => {
    const recording = JSON.parse(
      await readFile(new URL("../../src/state/__fixtures__/pi_chat_list_downloads.envelopes.json", import.meta.url), "utf8"),
    ) as unknown[];
    await sendPrompt("What PDFs are in my Downloads?");
    await run.sendRecorded(recording.slice(0, -1));
    const card = page.locator('[data-testid="tool-card"][data-tool="list_download_files"][data-state="done"]');
    await card.waitFor();
    await expect(card.getByTestId("file-row").locator("td").first().textContent()).resolves.toBe("report.pdf");
    await page.locator('[data-testid="run-status"][data-state="settling"]').waitFor();
    await expect(page.getByTestId("send-button").isDisabled()).resolves.toBe(true);
    await run.sendRecorded(recording.slice(-1));
    await page.locator('[data-testid="run-status"][data-state="idle"]').waitFor();
    await expect(page.getByTestId("send-button").isEnabled()).resolves.toBe(true);
    await expect(page.getByTestId("message-user").allTextContents()).resolves.toEqual(["What PDFs are in my Downloads?"]);
    await run.finish();
  });

  it("shows a running tool card with its progress while the tool works", async () => {
    await sendPrompt("Read the report");
    const call = { type: "toolCall" as const, id: "call_read", name: "read_document", arguments: { path: "Quarterly report 2024.pdf" } };
    await run.send(
      ...runStart("Read the report"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "toolcall_start", contentIndex: 0, block: call }),
      update({ type: "toolcall_end", contentIndex: 0, toolCall: call }),
      event({ type: "message_end", message: assistantMessage([call], "toolUse") }),
      event({ type: "tool_execution_start", toolCallId: call.id, toolName: call.name, args: call.arguments }),
      event({
        type: "tool_execution_update",
        toolCallId: call.id,
        toolName: call.name,
        args: call.arguments,
        partialResult: { content: [{ type: "text", text: "Page 3 of 12" }], details: { page: 3 } },
      }),
    );
    const card = page.locator('[data-testid="tool-card"][data-tool="read_document"][data-state="running"]');
    await card.waitFor();
    await expect(card.getByTestId("tool-progress").textContent()).resolves.toContain("Page 3 of 12");
    await page.screenshot({ path: join(ARTIFACTS, "chat-tool-running.png") });
    await run.send(
      event({
        type: "tool_execution_end",
        toolCallId: call.id,
        toolName: call.name,
        result: { content: [{ type: "text", text: "File not found: Quarterly report 2024.pdf" }], details: {} },
        isError: true,
      }),
      ...runEnd(),
    );
    await run.finish();
    await page.locator('[data-testid="tool-card"][data-tool="read_document"][data-state="error"]').waitFor();
  });

  it("shows a provider error inline with advice and Retry, and a refused command in the banner", async () => {
    await sendPrompt("Hi");
    await run.send(
      ...runStart("Hi"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      event({
        type: "message_end",
        message: assistantMessage([], "error", { errorMessage: "401 Unauthorized: invalid x-api-key" }),
      }),
      ...runEnd("401 Unauthorized: invalid x-api-key"),
    );
    await run.finish();
    const failed = page.locator('[data-testid="message-assistant"][data-state="error"]');
    await failed.waitFor();
    await expect(failed.getByTestId("assistant-error").textContent()).resolves.toContain("Open Settings");
    await expect(page.getByTestId("retry-button").isVisible()).resolves.toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, "chat-error.png") });

    await page.evaluate(() => {
      window.__chatMock.nextRunRejection = {
        kind: "settings",
        code: "settings_unusable",
        detail: "No API key is set for OpenAI.",
      };
    });
    await page.getByTestId("composer-input").fill("Try again");
    await page.getByTestId("send-button").click();
    await expect(page.getByTestId("error-banner").textContent()).resolves.toContain("Open Settings and choose one");
    await expect(page.locator(".error-banner-detail").textContent()).resolves.toBe("No API key is set for OpenAI.");
    await expect(page.getByTestId("send-button").isEnabled()).resolves.toBe(true);
    await expect(page.locator('[data-testid="message-user"][data-delivery="failed"]').count()).resolves.toBe(1);
  });

  it("keeps hostile Markdown inert: no script, no image load, no javascript: link, no navigation", async () => {
    await sendPrompt("Show me HTML");
    const hostile = [
      "<script>window.__pwned = 1</script>",
      "",
      '<img src="https://evil.example/x.png" onerror="window.__pwned = 2">',
      "",
      "![remote](https://evil.example/cat.png) [click me](javascript:window.__pwned=3) [site](https://example.com)",
      "",
      '<iframe src="https://evil.example"></iframe><svg onload="window.__pwned = 4"></svg>',
    ].join("\n");
    await run.send(
      ...runStart("Show me HTML"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
      update({ type: "text_delta", contentIndex: 0, delta: hostile }),
      event({ type: "message_end", message: assistantMessage([{ type: "text", text: hostile }], "stop") }),
      ...runEnd(),
    );
    await run.finish();
    const answer = page.getByTestId("message-assistant");
    await answer.locator(".md-link").first().waitFor();
    await expect(answer.locator("script, img, iframe, svg:not(.icon)").count()).resolves.toBe(0);
    await expect(answer.locator("[src], [onerror], [onload]").count()).resolves.toBe(0);
    await expect(answer.locator("[href]").evaluateAll((links) => links.map((link) => link.getAttribute("href")))).resolves.toEqual([
      "https://example.com",
    ]);
    const before = page.url();
    await answer.locator(".md-link", { hasText: "click me" }).click();
    await answer.locator(".md-link", { hasText: "site" }).click();
    await page.waitForFunction(() => window.__chatMock.calls.some((call) => call.cmd === "plugin:opener|open_url"));
    expect(page.url()).toBe(before);
    await expect(
      page.evaluate(() => window.__chatMock.calls.filter((call) => call.cmd === "plugin:opener|open_url").map((call) => call.args)),
    ).resolves.toEqual([{ url: "https://example.com" }]);
    await expect(page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
  });
});

describe("settings and languages", () => {
  it("shows About with the version and log folder from app_info, and copies them for a bug report", async () => {
    await page.getByTestId("settings-button").click();
    const about = page.getByTestId("settings-panel").getByTestId("about-section");
    await about.getByTestId("about-log-dir").waitFor();
    await expect(about.getByRole("heading", { name: "About" }).isVisible()).resolves.toBe(true);
    await expect(about.getByTestId("about-version").textContent()).resolves.toBe("0.1.0");
    await expect(about.getByTestId("about-log-dir").textContent()).resolves.toBe(
      "/home/ada/.local/share/dev.pi.desktop/logs",
    );
    // Record what reaches the clipboard (headless Chromium may refuse the real one).
    await page.evaluate(() => {
      const copied: string[] = [];
      (window as unknown as { __copied: string[] }).__copied = copied;
      Object.defineProperty(navigator, "clipboard", {
        configurable: true,
        value: { writeText: (text: string) => Promise.resolve(void copied.push(text)) },
      });
    });

    await about.getByTestId("about-copy").click();

    await about.locator('[data-testid="about-copy-status"][data-state="copied"]').waitFor();
    const copied = await page.evaluate(() => (window as unknown as { __copied: string[] }).__copied);
    expect(copied).toHaveLength(1);
    expect(copied[0]?.split("\n").slice(0, 3)).toEqual([
      "Pi Desktop 0.1.0",
      "Platform: linux x86_64",
      "Log folder: /home/ada/.local/share/dev.pi.desktop/logs",
    ]);
    await about.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, "settings-about.png") });
  });

  it("sets the key write-only, switches to Chinese and back, and starts a new conversation", async () => {
    await page.getByTestId("settings-button").click();
    const panel = page.getByTestId("settings-panel");
    await panel.getByTestId("settings-model").waitFor();
    await expect(panel.getByTestId("api-key-status").getAttribute("data-set")).resolves.toBe("false");
    await panel.getByTestId("settings-api-key").fill("sk-test-123");
    await panel.getByRole("button", { name: "Save key" }).click();
    await panel.locator('[data-testid="api-key-status"][data-set="true"]').waitFor();
    await expect(panel.getByTestId("settings-api-key").inputValue()).resolves.toBe("");
    await expect(panel.getByTestId("settings-api-key").getAttribute("type")).resolves.toBe("password");
    // The key goes to the provider the form shows.
    expect(await page.evaluate(() => window.__chatMock.calls.find((call) => call.cmd === "set_api_key")?.args)).toEqual({
      key: "sk-test-123",
      preset: "openai",
    });

    await panel.getByTestId("settings-language").selectOption("zh");
    await panel.getByTestId("settings-save").click();
    await page.getByRole("heading", { name: "设置" }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, "settings-zh-light.png") });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.screenshot({ path: join(ARTIFACTS, "settings-zh-dark.png") });
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("settings-panel").count()).resolves.toBe(0);
    await expect(page.getByTestId("composer-input").getAttribute("placeholder")).resolves.toContain("Enter 发送");
    await page.screenshot({ path: join(ARTIFACTS, "empty-zh-dark.png") });

    await page.getByTestId("new-conversation-button").click();
    await page.waitForFunction(() => window.__chatMock.calls.some((call) => call.cmd === "new_conversation"));
    await page.getByTestId("settings-button").click();
    await page.getByTestId("settings-language").selectOption("en");
    await page.getByTestId("settings-save").click();
    await page.getByRole("heading", { name: "Settings" }).waitFor();
  });
});
