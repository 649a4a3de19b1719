// The built UI in headless Chromium against the chat mock backend: the actions under each message. Regenerate
// cuts the answer and the new one streams in as version 2/2; the navigator shows the first again; Regenerate
// during a run is refused with the host's reason; Delete takes the pair away with an Undo; a cut-off answer is
// marked truncated and Continue makes one answer of it.
import { existsSync } from "node:fs";
import { join } from "node:path";

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import type { AgentMessage, MessageVersion } from "../../src/ipc/wire";
import { assistantMessage, event, notice, runEnd, update } from "../../src/state/__fixtures__/builders";
import { chatMockBackendScript, RunDriver } from "./chat-support";
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

const kettle = { role: "user" as const, content: [{ type: "text" as const, text: "Where is my kettle?" }], timestamp: 10 };
const answer = (text: string, timestamp: number, stopReason: "stop" | "length" = "stop") => ({
  ...assistantMessage([{ type: "text", text }], stopReason),
  timestamp,
});
const version = (seq: number, role: string, timestamp: number, at: number, of: number): MessageVersion => ({
  seq,
  role,
  timestamp,
  version: at,
  versions: of,
});
const state = (messages: AgentMessage[], versions: MessageVersion[]) => ({
  conversationId: "c-1",
  isStreaming: false,
  pendingToolCalls: [],
  messages,
  model: { provider: "openai", id: "gpt-4.1-mini", api: "openai-responses" },
  thinkingLevel: "off",
  versions,
});

/** One answer streamed by the host, then where the messages stand among their versions, then idle. */
async function answerWith(run: RunDriver, message: ReturnType<typeof answer>, versions: MessageVersion[], prompt = true) {
  await run.waitForRun();
  await run.send(
    event({ type: "agent_start" }),
    ...(prompt ? [event({ type: "message_start", message: kettle }), event({ type: "message_end", message: kettle })] : []),
    event({ type: "message_start", message: { ...message, content: [] } }),
    update({ type: "text_delta", contentIndex: 0, delta: message.content[0]?.type === "text" ? message.content[0].text : "" }),
    event({ type: "message_end", message }),
    notice({ type: "versions", versions }),
    ...runEnd(),
  );
}

async function askKettle(run: RunDriver) {
  await page.getByTestId("composer-input").fill("Where is my kettle?");
  await page.getByTestId("send-button").click();
  await answerWith(run, answer("On the shelf.", 20), [version(0, "user", 10, 1, 1), version(1, "assistant", 20, 1, 1)]);
  await page.locator('[data-testid="run-status"][data-state="idle"]').waitFor();
}

const callsOf = (cmd: string) =>
  page.evaluate((name) => window.__chatMock.calls.filter((call) => call.cmd === name).map((call) => call.args), cmd);

describe("versions of an answer", () => {
  it("regenerate streams version 2/2 in place of the answer, and the navigator shows version 1/2 again", async () => {
    const run = new RunDriver(page);
    await askKettle(run);

    await page.getByTestId("regenerate-button").click();
    await expect(page.getByTestId("message-assistant").count()).resolves.toBe(0);
    await expect(callsOf("regenerate")).resolves.toEqual([{ conversationId: "c-1", seq: 1 }]);
    await answerWith(run, answer("Next to the sink.", 30), [version(0, "user", 10, 1, 1), version(2, "assistant", 30, 2, 2)], false);
    await page.locator('[data-testid="version-label"]', { hasText: "2/2" }).waitFor();
    await expect.poll(() => page.getByTestId("assistant-text").innerText()).toBe("Next to the sink.");
    await expect(page.getByTestId("version-next").isDisabled()).resolves.toBe(true);

    await page.evaluate(
      (answered) => window.__chatMock.versionAnswers.push(answered),
      state([kettle, answer("On the shelf.", 20)], [version(0, "user", 10, 1, 1), version(1, "assistant", 20, 1, 2)]),
    );
    await page.getByTestId("version-prev").click();
    await page.locator('[data-testid="version-label"]', { hasText: "1/2" }).waitFor();
    await expect.poll(() => page.getByTestId("assistant-text").innerText()).toBe("On the shelf.");
    await expect(callsOf("show_version")).resolves.toEqual([{ conversationId: "c-1", seq: 2, step: -1 }]);
  });

  it("regenerate during a run is refused with the host's reason, and the answer stays", async () => {
    const run = new RunDriver(page);
    await askKettle(run);
    await page.getByTestId("composer-input").fill("And the tea?");
    await page.getByTestId("send-button").click();
    await run.waitForRun();
    await run.send(event({ type: "agent_start" }));

    await page.getByTestId("regenerate-button").click();

    await page.getByTestId("error-banner").waitFor();
    await expect(page.getByTestId("error-banner").textContent()).resolves.toContain("An answer is still running.");
    await expect.poll(() => page.getByTestId("assistant-text").innerText()).toBe("On the shelf.");
  });
});

describe("a question", () => {
  it("is edited into a new branch, pending until the host echoes it", async () => {
    const run = new RunDriver(page);
    await askKettle(run);

    await page.getByTestId("edit-button").click();
    await page.getByTestId("edit-input").fill("Where is my tea?");
    await page.getByTestId("edit-send").click();

    await expect(callsOf("edit_message")).resolves.toEqual([{ conversationId: "c-1", seq: 0, text: "Where is my tea?" }]);
    await page.locator('[data-testid="message-user"][data-delivery="pending"]', { hasText: "Where is my tea?" }).waitFor();
    await expect(page.getByTestId("message-assistant").count()).resolves.toBe(0);
    await expect(page.getByTestId("edit-input").count()).resolves.toBe(0);
  });

  it("is deleted with its answer and comes back with Undo", async () => {
    const run = new RunDriver(page);
    await askKettle(run);
    await page.evaluate(
      (answers) => window.__chatMock.versionAnswers.push(...answers),
      [
        { deleted: { seqs: [0, 1], undoUntil: Date.now() + 10_000 }, state: state([], []) },
        state([kettle, answer("On the shelf.", 20)], [version(0, "user", 10, 1, 1), version(1, "assistant", 20, 1, 1)]),
      ],
    );

    await page.getByTestId("delete-button").click();
    await page.getByTestId("message-toast").waitFor();
    await expect(page.getByTestId("message-user").count()).resolves.toBe(0);
    await page.getByTestId("undo-message-delete").click();

    await page.getByTestId("message-user").waitFor();
    await expect(callsOf("restore_messages")).resolves.toEqual([{ conversationId: "c-1", seqs: [0, 1] }]);
    await expect(page.getByTestId("message-toast").count()).resolves.toBe(0);
  });
});

describe("an answer cut off by the length limit", () => {
  it("is marked truncated, and Continue makes one answer of it and its continuation", async () => {
    const run = new RunDriver(page);
    await page.getByTestId("composer-input").fill("Where is my kettle?");
    await page.getByTestId("send-button").click();
    await answerWith(run, answer("On the sh", 20, "length"), [version(0, "user", 10, 1, 1), version(1, "assistant", 20, 1, 1)]);
    await page.locator('[data-testid="message-assistant"][data-state="truncated"]').waitFor();
    await page.getByTestId("truncated-label").waitFor();

    await page.getByTestId("continue-button").click();
    await run.waitForRun();
    await run.send(
      event({ type: "agent_start" }),
      event({ type: "message_start", message: { role: "continuation", timestamp: 25 } }),
      event({ type: "message_end", message: { role: "continuation", timestamp: 25 } }),
    );
    const rest = answer("elf, behind the tea.", 30);
    await run.send(
      event({ type: "message_start", message: { ...rest, content: [] } }),
      update({ type: "text_delta", contentIndex: 0, delta: "elf, behind the tea." }),
      event({ type: "message_end", message: rest }),
      ...runEnd(),
    );

    await page.locator('[data-testid="message-assistant"][data-state="done"]').waitFor();
    await expect(page.getByTestId("message-assistant").count()).resolves.toBe(1);
    await expect.poll(() => page.getByTestId("assistant-text").innerText()).toBe("On the shelf, behind the tea.");
    await expect(page.getByTestId("continue-button").count()).resolves.toBe(0);
  });
});
