// A long conversation in headless Chromium against the chat mock backend: thousands of messages, tool calls among
// them, open at their end with only the rows near the viewport mounted; scrolling to the top mounts the first,
// back to the bottom the last; a drag of the scrollbar's speed draws placeholders until it slows down; a streaming
// answer keeps the view at the bottom, or, once the user scrolled up, leaves it where it is. A short conversation
// has every row in the DOM, mounted from its end a slice at a time.
import { existsSync } from "node:fs";
import { join } from "node:path";

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import type { AgentMessage } from "../../src/ipc/pi";
import { assistantMessage, event, runEnd, runStart, update } from "../../src/state/__fixtures__/builders";
import { RunDriver, chatMockBackendScript } from "./chat-support";
import { launchChromium, type Browser } from "./support/browser";
import { DIST_DIR, serveDist, type StaticServer } from "./support/static-server";
import { collectProblems } from "./support/page-problems";

/** Question and answer pairs of the long conversation; every fifth answer first calls a tool. */
const LONG_PAIRS = 2_500;
/** Of the short one: its shown items (questions, answers, tool-calling answers) stay below the windowing limit. */
const SHORT_PAIRS = 60;
const TOOL_EVERY = 5;
/** Of the conversation of questions alone. */
const QUESTIONS = 150;
/** useStickToBottom's slack: this close to the bottom counts as at the bottom. */
const BOTTOM_SLACK_PX = 48;

declare global {
  interface Window {
    /** The run status line's states since the test began to watch it. */
    __statusSeen: string[];
    /** Placeholder rows added to the transcript since the test began to watch it. */
    __placeholdersAdded: number;
    /** What the transcript showed at each change of its size (watchTranscript). */
    __transcriptSeen: { questions: number; lastQuestion: string; fromBottom: number }[];
    /** The question at the view's top when watchTranscript scrolled it up, where it was (px below the view's top) and how far the view was from the bottom. */
    __transcriptRead: { text: string; top: number; fromBottom: number } | null;
  }
}

let server: StaticServer;
let browser: Browser;
let page: Page;
let run: RunDriver;
let problems: string[];

/** A conversation of `pairs` questions and answers, as the host stores it; the answers of every fifth use a tool. */
function conversation(pairs: number): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let index = 1; index <= pairs; index += 1) {
    messages.push({ role: "user", content: `Question ${index}: what is in folder ${index}?` });
    if (index % TOOL_EVERY === 0) {
      const call = { type: "toolCall" as const, id: `call_${index}`, name: "list_download_files", arguments: { folder: `${index}` } };
      messages.push(assistantMessage([call], "toolUse"), {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: `folder ${index} holds report-${index}.pdf` }],
        isError: false,
      });
    }
    const paragraphs = Array.from({ length: 1 + (index % 3) }, (_, line) => `Paragraph ${line + 1} of answer ${index}.`);
    messages.push(assistantMessage([{ type: "text", text: `Answer ${index}.\n\n${paragraphs.join("\n\n")}` }], "stop"));
  }
  return messages;
}

/** Questions left unanswered, one after the other: rows whose height is known once they are mounted. */
function onlyQuestions(count: number): AgentMessage[] {
  return Array.from({ length: count }, (_, index) => ({ role: "user", content: `Question ${index + 1} of many.` }));
}

/** The number of shown items of `pairs` pairs: a question, an answer, and for every fifth a tool-calling answer. */
function shownCount(pairs: number): number {
  return pairs * 2 + Math.floor(pairs / TOOL_EVERY);
}

beforeAll(async () => {
  if (!existsSync(join(DIST_DIR, "index.html"))) {
    throw new Error(`${DIST_DIR}/index.html is missing: run \`npm run build\` in ui/ first`);
  }
  expect(shownCount(LONG_PAIRS)).toBeGreaterThan(5_000);
  expect(shownCount(SHORT_PAIRS)).toBeLessThan(200);
  server = await serveDist();
  browser = await launchChromium();
  await browser.context.addInitScript({ content: await chatMockBackendScript() });
  // Four stored conversations: an empty one shown at start, the long one, the short one and one of questions.
  await browser.context.addInitScript(
    ({ long, short, questions }) => {
      const now = Date.now();
      const model = { provider: "openai", id: "gpt-4.1-mini", name: "GPT-4.1 mini" };
      const stored = (id: string, messages: unknown[]) => ({ conversationId: id, isStreaming: false, pendingToolCalls: [], messages, model });
      window.__chatMock.conversations = {
        list: {
          days: [
            {
              day: new Date(now).toISOString().slice(0, 10),
              conversations: [
                { id: "empty", title: "Nothing yet", model: "gpt-4.1-mini", createdAt: now - 10_000, updatedAt: now - 1_000 },
                { id: "long", title: "Every folder", model: "gpt-4.1-mini", createdAt: now - 90_000, updatedAt: now - 20_000 },
                { id: "short", title: "A few folders", model: "gpt-4.1-mini", createdAt: now - 95_000, updatedAt: now - 30_000 },
                { id: "questions", title: "Only questions", model: "gpt-4.1-mini", createdAt: now - 99_000, updatedAt: now - 40_000 },
              ],
            },
          ],
          activeId: "empty",
          more: false,
          streamingIds: [],
          storage: { persistent: true, notices: [] },
        },
        states: {
          empty: stored("empty", []),
          long: stored("long", long),
          short: stored("short", short),
          questions: stored("questions", questions),
        },
      };
    },
    { long: conversation(LONG_PAIRS), short: conversation(SHORT_PAIRS), questions: onlyQuestions(QUESTIONS) },
  );
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
  await page.getByTestId("conversation-item").nth(2).waitFor();
  run = new RunDriver(page);
});

afterEach(async () => {
  expect(problems).toEqual([]);
  await page.close();
});

async function openConversation(index: number): Promise<void> {
  await page.getByTestId("conversation-item").nth(index).getByTestId("conversation-open").click();
}

/**
 * Waits until a message (question or answer) containing `text` is mounted and wholly inside the scroller's view;
 * if it never is, fails with where the view is and which rows are mounted.
 */
async function waitUntilVisible(text: string): Promise<void> {
  try {
    await page.waitForFunction(
      (wanted) => {
        const list = document.querySelector('[data-testid="message-list"]');
        if (list === null) return false;
        const view = list.getBoundingClientRect();
        return [...list.querySelectorAll('[data-testid="message-user"], [data-testid="message-assistant"]')].some((message) => {
          if (!(message.textContent ?? "").includes(wanted)) return false;
          const box = message.getBoundingClientRect();
          return box.height > 0 && box.top >= view.top - 1 && box.bottom <= view.bottom + 1;
        });
      },
      text,
      { timeout: 10_000 },
    );
  } catch (error) {
    const where = await page.getByTestId("message-list").evaluate((list) => {
      const view = list.getBoundingClientRect();
      const rows = [...list.querySelectorAll('[data-testid="message-user"], [data-testid="message-assistant"]')].map(
        (message) => `${Math.round(message.getBoundingClientRect().top - view.top)}: ${(message.textContent ?? "").slice(0, 24)}`,
      );
      const bottom = list.scrollHeight - list.scrollTop - list.clientHeight;
      return `scrollTop ${list.scrollTop}, ${bottom} px above the bottom; mounted (top in view: text): ${rows.join(" | ")}`;
    });
    throw new Error(`"${text}" was never wholly in view: ${where}`, { cause: error });
  }
}

async function mountedMessages(): Promise<number> {
  return page.locator('[data-testid="message-user"], [data-testid="message-assistant"]').count();
}

/** How far the scroller's view is from its bottom. */
async function distanceFromBottom(): Promise<number> {
  return page.getByTestId("message-list").evaluate((list) => list.scrollHeight - list.scrollTop - list.clientHeight);
}

/** Scrolls the transcript to `top` (a function of the scroller) and resolves once the scroll event was handled. */
async function scrollTranscript(to: "top" | "bottom" | { by: number }): Promise<void> {
  await page.getByTestId("message-list").evaluate((list, where) => {
    const target =
      where === "top" ? 0 : where === "bottom" ? list.scrollHeight - list.clientHeight : list.scrollTop + where.by;
    const handled = new Promise((resolve) => list.addEventListener("scroll", resolve, { once: true }));
    list.scrollTop = target;
    return handled;
  }, to);
}

/** Counts the placeholder rows (WindowedRows, while the view seeks) added to the transcript from now on. */
async function watchPlaceholders(): Promise<void> {
  await page.getByTestId("message-list").evaluate((list) => {
    window.__placeholdersAdded = 0;
    new MutationObserver((changes) => {
      for (const change of changes) {
        for (const node of change.addedNodes) {
          if (node instanceof HTMLElement && node.matches("[data-placeholder]")) window.__placeholdersAdded += 1;
        }
      }
    }).observe(list, { childList: true, subtree: true });
  });
}

/**
 * Scrolls the transcript by `step` px in each of `frames` animation frames, as a drag of the scrollbar does; for
 * each frame after the first, how many placeholder rows were mounted and how many of them in view.
 */
async function scrollEachFrame(step: number, frames: number): Promise<{ mounted: number; inView: number }[]> {
  return page.getByTestId("message-list").evaluate(
    (list, { step, frames }) =>
      new Promise<{ mounted: number; inView: number }[]>((done) => {
        const seen: { mounted: number; inView: number }[] = [];
        const tick = (frame: number) => {
          if (frame > 0) {
            const view = list.getBoundingClientRect();
            const placeholders = [...list.querySelectorAll("[data-placeholder]")];
            const inView = placeholders.filter((row) => {
              const box = row.getBoundingClientRect();
              return box.bottom > view.top && box.top < view.bottom;
            });
            seen.push({ mounted: placeholders.length, inView: inView.length });
          }
          if (frame === frames) {
            done(seen);
            return;
          }
          list.scrollTop += step;
          requestAnimationFrame(() => tick(frame + 1));
        };
        requestAnimationFrame(() => tick(0));
      }),
    { step, frames },
  );
}

describe("a long conversation", () => {
  it("opens at its end with only the rows near the viewport mounted", async () => {
    const started = Date.now();
    await openConversation(1);
    await waitUntilVisible(`Answer ${LONG_PAIRS}.`);
    console.info(`long conversation (${shownCount(LONG_PAIRS)} items) showed its last answer after ${Date.now() - started} ms`);

    await expect(mountedMessages()).resolves.toBeLessThan(100);
    await expect(mountedMessages()).resolves.toBeGreaterThan(2);
    // The last pair used a tool: its card is among the mounted rows.
    expect(LONG_PAIRS % TOOL_EVERY).toBe(0);
    await expect(page.locator(`[data-testid="tool-card"]`).count()).resolves.toBeGreaterThan(0);
    await expect(page.getByText("Question 1: what is in folder 1?", { exact: true }).count()).resolves.toBe(0);
    // Where the view comes to rest: a single read right after can fall between a change of the rows (the whole
    // transcript replaces its end once that is on screen) and the frame that puts the view back at the bottom.
    await expect.poll(distanceFromBottom, { timeout: 2_000 }).toBeLessThanOrEqual(BOTTOM_SLACK_PX);
  });

  it("scrolling to the top mounts the first message, back to the bottom shows the last", async () => {
    await openConversation(1);
    await waitUntilVisible(`Answer ${LONG_PAIRS}.`);
    await page.locator('[data-testid="run-status"][data-state="idle"]').waitFor();
    await page.getByTestId("run-status").evaluate((status) => {
      window.__statusSeen = [];
      new MutationObserver(() => window.__statusSeen.push(status.getAttribute("data-state") ?? "")).observe(status, {
        attributes: true,
        attributeFilter: ["data-state"],
      });
    });

    await watchPlaceholders();
    await scrollTranscript("top");
    await waitUntilVisible("Question 1: what is in folder 1?");
    await waitUntilVisible("Answer 1.");
    await page.locator('[data-testid="message-assistant"][data-state="done"]', { hasText: "Answer 1." }).first().waitFor();
    // Answers rendered again as they come into view are no run's text: the status line stays idle.
    await expect(page.evaluate(() => window.__statusSeen)).resolves.toEqual([]);
    await expect(mountedMessages()).resolves.toBeLessThan(100);
    await expect(page.getByText(`Question ${LONG_PAIRS}:`).count()).resolves.toBe(0);

    await scrollTranscript("bottom");
    await waitUntilVisible(`Answer ${LONG_PAIRS}.`);
    await expect(mountedMessages()).resolves.toBeLessThan(100);
    await expect(page.getByText("Question 1: what is in folder 1?", { exact: true }).count()).resolves.toBe(0);
    // A jump is not a drag: the rows at either end were mounted as themselves.
    await expect(page.evaluate(() => window.__placeholdersAdded)).resolves.toBe(0);
  });

  it("dragged at screenfuls a frame it shows placeholders, and the rows once it slows down or rests", async () => {
    await openConversation(1);
    await waitUntilVisible(`Answer ${LONG_PAIRS}.`);
    await page.locator('[data-testid="run-status"][data-state="idle"]').waitFor();
    await scrollTranscript("top");
    await waitUntilVisible("Answer 1.");
    await watchPlaceholders();

    // At 100 px a frame (a fast wheel) every row is itself.
    const wheel = await scrollEachFrame(100, 40);
    expect(wheel.every((frame) => frame.mounted === 0)).toBe(true);
    await expect(page.evaluate(() => window.__placeholdersAdded)).resolves.toBe(0);

    // At 2,000 px a frame (a seek even with frames 70 ms apart on a busy machine) the rows coming into view are
    // placeholders, from the second fast step on: one step is a jump.
    const drag = await scrollEachFrame(2_000, 40);
    expect(drag[0]?.mounted).toBe(0);
    expect(drag.slice(5).filter((frame) => frame.inView > 0).length).toBeGreaterThan(30);
    // Slowed down, the rows come back while the view still moves.
    const slow = await scrollEachFrame(100, 10);
    expect(slow.at(-1)?.mounted).toBe(0);
    await page.waitForFunction(() => document.querySelector("[data-placeholder]") === null);
    await expect(page.locator('[data-testid="message-user"], [data-testid="message-assistant"]').count()).resolves.toBeGreaterThan(2);

    // A drag that stops dead: the rows come back once the view rests.
    const stopped = await scrollEachFrame(2_000, 20);
    expect(stopped.at(-1)?.inView ?? 0).toBeGreaterThan(0);
    await page.waitForFunction(() => document.querySelector("[data-placeholder]") === null);
    const inView = await page.getByTestId("message-list").evaluate((list) => {
      const view = list.getBoundingClientRect();
      return [...list.querySelectorAll('[data-testid="message-user"]')]
        .filter((message) => {
          const box = message.getBoundingClientRect();
          return box.top >= view.top && box.bottom <= view.bottom;
        })
        .map((message) => message.textContent ?? "");
    });
    expect(inView.length).toBeGreaterThan(0);
    expect(inView.every((text) => /Question \d+: what is in folder \d+\?/.test(text))).toBe(true);
  });

  it("a streaming answer keeps the view at the bottom; scrolled up, the view stays where it is while it grows", async () => {
    await openConversation(1);
    await waitUntilVisible(`Answer ${LONG_PAIRS}.`);
    await page.getByTestId("composer-input").fill("And the folders after those?");
    await page.getByTestId("composer-input").press("Enter");
    await run.waitForRun();
    await run.send(
      ...runStart("And the folders after those?"),
      event({ type: "message_start", message: assistantMessage([], "pending") }),
      update({ type: "text_start", contentIndex: 0 }),
    );
    const answer = page.locator('[data-testid="message-assistant"][data-state="streaming"]');
    await answer.waitFor();

    // Each paragraph makes the answer taller; the view follows it down.
    const streamedShows = (text: string) =>
      page.waitForFunction(
        (shown) => (document.querySelector('[data-testid="message-assistant"][data-state="streaming"]')?.textContent ?? "").includes(shown),
        text,
      );
    let written = "";
    const write = async (from: number, to: number) => {
      for (let line = from; line <= to; line += 1) {
        const delta = `Streamed paragraph ${line} about the folders after those.\n\n`;
        written += delta;
        await run.send(update({ type: "text_delta", contentIndex: 0, delta }));
      }
      await streamedShows(`Streamed paragraph ${to} `);
    };
    for (const [from, to] of [[1, 10], [11, 20], [21, 30]] as const) {
      await write(from, to);
      await page.waitForFunction(
        (slack) => {
          const list = document.querySelector('[data-testid="message-list"]');
          return list !== null && list.scrollHeight - list.scrollTop - list.clientHeight <= slack;
        },
        BOTTOM_SLACK_PX,
      );
      await expect(mountedMessages()).resolves.toBeLessThan(100);
    }
    const answerBox = await answer.boundingBox();
    expect(answerBox?.height ?? 0).toBeGreaterThan(600);

    // Scrolled up into the answer: its growth below the view moves nothing in view.
    await scrollTranscript({ by: -300 });
    const anchor = () =>
      page.getByTestId("message-list").evaluate((list) => {
        const view = list.getBoundingClientRect();
        const paragraphs = [...list.querySelectorAll('[data-testid="message-assistant"][data-state="streaming"] p')];
        const shown = paragraphs.find((paragraph) => paragraph.getBoundingClientRect().top >= view.top);
        return { text: shown?.textContent ?? null, top: shown?.getBoundingClientRect().top ?? null, scrollTop: list.scrollTop };
      });
    const before = await anchor();
    expect(before.text).not.toBeNull();
    await write(31, 45);
    const after = await anchor();
    expect(after.text).toBe(before.text);
    expect(Math.abs((after.top ?? 0) - (before.top ?? 0))).toBeLessThanOrEqual(1);
    await expect(distanceFromBottom()).resolves.toBeGreaterThan(BOTTOM_SLACK_PX);

    // Back at the bottom, the view follows again.
    await scrollTranscript("bottom");
    await write(46, 60);
    await page.waitForFunction(
      (slack) => {
        const list = document.querySelector('[data-testid="message-list"]');
        return list !== null && list.scrollHeight - list.scrollTop - list.clientHeight <= slack;
      },
      BOTTOM_SLACK_PX,
    );

    // Scrolled up while a delta is on its way: its render can come before the scroll's event, and must not take the
    // view back to the bottom. Scrolled in an animation frame, whose scroll events have been dispatched already, the
    // event waits for the next frame, and the delta's render (a task) comes first.
    const overtaking = "Streamed paragraph 61 arrives before the scroll event.\n\n";
    written += overtaking;
    await page.getByTestId("message-list").evaluate(
      (list, envelopes) =>
        new Promise<void>((done) =>
          requestAnimationFrame(() => {
            list.scrollTop -= 1_500;
            for (const envelope of envelopes) window.__chatMock.send(envelope);
            done();
          }),
        ),
      run.envelopes(update({ type: "text_delta", contentIndex: 0, delta: overtaking })),
    );
    await streamedShows("Streamed paragraph 61 ");
    await expect.poll(distanceFromBottom, { timeout: 1_000 }).toBeGreaterThan(1_000);
    await write(62, 70);
    await expect(distanceFromBottom()).resolves.toBeGreaterThan(1_000);

    await run.send(
      event({ type: "message_end", message: assistantMessage([{ type: "text", text: written }], "stop") }),
      ...runEnd(),
    );
    await page.locator('[data-testid="run-status"][data-state="idle"]').waitFor();
  });
});

describe("a short conversation", () => {
  it("has every message and tool card in the DOM", async () => {
    await openConversation(2);
    await waitUntilVisible(`Answer ${SHORT_PAIRS}.`);
    await page.getByText("Question 1: what is in folder 1?", { exact: true }).waitFor({ state: "attached" });
    await expect(page.getByTestId("message-user").count()).resolves.toBe(SHORT_PAIRS);
    await expect(page.getByTestId("message-assistant").count()).resolves.toBe(SHORT_PAIRS + SHORT_PAIRS / TOOL_EVERY);
    await expect(page.getByTestId("tool-card").count()).resolves.toBe(SHORT_PAIRS / TOOL_EVERY);
    await expect(page.getByText("Question 1: what is in folder 1?", { exact: true }).count()).resolves.toBe(1);
    await expect(page.locator(".transcript-row").count()).resolves.toBe(0);
  });

  it("opens at its end, the rows above it mounted a slice at a time, the view at the bottom all along", async () => {
    await watchTranscript();
    await openConversation(2);
    await page.getByText("Question 1: what is in folder 1?", { exact: true }).waitFor({ state: "attached" });
    const seen = await page.evaluate(() => window.__transcriptSeen);
    expect(seen.length).toBeGreaterThan(0);
    // The first frame's rows are the conversation's last ones, not all of them; the others come in several slices.
    expect(seen[0]?.questions).toBeGreaterThan(0);
    expect(seen[0]?.questions).toBeLessThan(SHORT_PAIRS / 2);
    expect(seen[0]?.lastQuestion).toBe(`Question ${SHORT_PAIRS}: what is in folder ${SHORT_PAIRS}?`);
    expect(new Set(seen.map((sight) => sight.questions)).size).toBeGreaterThan(3);
    expect(seen.filter((sight) => sight.fromBottom > BOTTOM_SLACK_PX)).toEqual([]);
    await expect(page.getByTestId("message-user").count()).resolves.toBe(SHORT_PAIRS);
    await waitUntilVisible(`Answer ${SHORT_PAIRS}.`);
  });

  it("keeps what a view scrolled up shows while the rows above it are mounted", async () => {
    // Questions alone, whose height is theirs once mounted: an answer grows again when its rendered Markdown comes.
    await watchTranscript({ scrollUpBy: 300, questions: QUESTIONS });
    await openConversation(3);
    await page.getByText("Question 1 of many.", { exact: true }).waitFor({ state: "attached" });
    const read = await page.evaluate(() => window.__transcriptRead);
    expect(read).not.toBeNull();
    // Read a frame after the last slice: the question the view showed at its top is where it was.
    const now = await page.evaluate(
      (text) =>
        new Promise<number | null>((resolve) =>
          requestAnimationFrame(() => {
            const list = document.querySelector('[data-testid="message-list"]');
            const question = [...document.querySelectorAll('[data-testid="message-user"]')].find(
              (candidate) => candidate.textContent === text,
            );
            resolve(list === null || question === undefined ? null : question.getBoundingClientRect().top - list.getBoundingClientRect().top);
          }),
        ),
      read?.text ?? "",
    );
    expect(now).not.toBeNull();
    expect(Math.abs((now ?? 0) - (read?.top ?? 0))).toBeLessThanOrEqual(2);
    await expect(page.getByTestId("message-user").count()).resolves.toBe(QUESTIONS);
    // What lies below the view did not change: the view is as far above the bottom as the scroll put it.
    expect(read?.fromBottom).toBeGreaterThan(100);
    expect(Math.abs((await distanceFromBottom()) - (read?.fromBottom ?? 0))).toBeLessThanOrEqual(2);
  });
});

/**
 * Records what the transcript shows each time its content changes size, once the view has been put where it goes
 * (this observer is created after the transcript's own, so it is called after it): the questions mounted, the last
 * of them, and how far the view is from the bottom. With `scrollUpBy`, the first time some rows but not all are
 * mounted (of `questions`, by default the short conversation's), the view is scrolled up that far and the question at
 * its top is noted with where it is.
 */
async function watchTranscript(options: { scrollUpBy?: number; questions?: number } = {}): Promise<void> {
  await page.evaluate(
    ({ scrollUpBy, all }) => {
      window.__transcriptSeen = [];
      window.__transcriptRead = null;
      const list = document.querySelector('[data-testid="message-list"]');
      const content = list?.querySelector(".transcript");
      if (!(list instanceof HTMLElement) || !(content instanceof HTMLElement)) throw new Error("no transcript");
      new ResizeObserver(() => {
        const questions = content.querySelectorAll('[data-testid="message-user"]').length;
        if (questions === 0) return;
        const lastQuestion = [...content.querySelectorAll('[data-testid="message-user"]')].at(-1)?.textContent ?? "";
        window.__transcriptSeen.push({ questions, lastQuestion, fromBottom: list.scrollHeight - list.scrollTop - list.clientHeight });
        if (scrollUpBy === undefined || window.__transcriptRead !== null || questions >= all) return;
        list.scrollTop -= scrollUpBy;
        const view = list.getBoundingClientRect();
        const atTop = [...content.querySelectorAll('[data-testid="message-user"]')].find(
          (message) => message.getBoundingClientRect().bottom > view.top,
        );
        if (atTop !== undefined) {
          window.__transcriptRead = {
            text: atTop.textContent ?? "",
            top: atTop.getBoundingClientRect().top - view.top,
            fromBottom: list.scrollHeight - list.scrollTop - list.clientHeight,
          };
        }
      }).observe(content);
    },
    { scrollUpBy: options.scrollUpBy, all: options.questions ?? SHORT_PAIRS },
  );
}
