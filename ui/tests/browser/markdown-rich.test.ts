// Math, diagrams and links in answers, in the built UI in headless Chromium with the app's real CSP: KaTeX with
// its bundled fonts and layout styles, Mermaid loaded only for a diagram and drawn once its fence closes, hostile
// formulas and diagrams inert, and a link click that reaches the opener and never navigates the page.
// Screenshots go to artifacts/ at the repository root (gitignored).
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { assistantMessage, event, runEnd, runStart, update } from "../../src/state/__fixtures__/builders";
import { RunDriver, chatMockBackendScript } from "./chat-support";
import { launchChromium, type Browser } from "./support/browser";
import { DIST_DIR, serveDist, type StaticServer } from "./support/static-server";

const ARTIFACTS = resolve(DIST_DIR, "..", "..", "artifacts");

let server: StaticServer;
let browser: Browser;
let page: Page;
let run: RunDriver;
let problems: string[];

declare global {
  interface Window {
    __richCspViolations: string[];
  }
}

/**
 * While Mermaid measures a diagram it inserts its stylesheet as a <style> element and sets style attributes on its
 * measuring elements; the CSP refuses them (the diagram shown gets its styles through the CSSOM instead,
 * ../../src/markdown/diagrams.ts). A test that draws a diagram expects those refusals of inline styles (the
 * kinds it names here); every other test expects none at all.
 */
let expectedRefusals: string[] = [];
const INLINE_STYLE_REFUSALS = ["style-src-attr inline", "style-src-elem inline"];

beforeAll(async () => {
  if (!existsSync(join(DIST_DIR, "index.html"))) {
    throw new Error(`${DIST_DIR}/index.html is missing: run \`npm run build\` in ui/ first`);
  }
  await mkdir(ARTIFACTS, { recursive: true });
  server = await serveDist();
  browser = await launchChromium();
  await browser.context.addInitScript({ content: await chatMockBackendScript() });
  await browser.context.addInitScript(() => {
    window.__richCspViolations = [];
    document.addEventListener("securitypolicyviolation", (violation) => {
      window.__richCspViolations.push(`${violation.violatedDirective} ${violation.blockedURI}`);
    });
  });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

beforeEach(async () => {
  problems = [];
  expectedRefusals = [];
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1100, height: 760 });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    const text = message.text();
    const refused = /violates the following Content Security Policy directive '(style|script)-src/.exec(text);
    if (refused !== null && expectedRefusals.some((kind) => kind.startsWith(`${refused[1]}-src`))) return;
    if (message.type() === "error" || message.type() === "warning") problems.push(`console: ${text}`);
  });
  await page.goto(server.url);
  await page.getByTestId("composer-input").waitFor();
  run = new RunDriver(page);
});

afterEach(async () => {
  const violations = await page.evaluate(() => window.__richCspViolations);
  expect(violations.filter((violation) => !expectedRefusals.includes(violation))).toEqual([]);
  expect(problems).toEqual([]);
  await page.close();
});

/** Sends a prompt and streams `chunks` as the answer, leaving the run open. */
async function streamAnswer(prompt: string, ...chunks: string[]): Promise<void> {
  await page.getByTestId("composer-input").fill(prompt);
  await page.getByTestId("composer-input").press("Enter");
  await run.waitForRun();
  await run.send(
    ...runStart(prompt),
    event({ type: "message_start", message: assistantMessage([], "pending") }),
    update({ type: "text_start", contentIndex: 0 }),
    ...chunks.map((delta) => update({ type: "text_delta", contentIndex: 0, delta })),
  );
}

async function endAnswer(text: string): Promise<void> {
  await run.send(event({ type: "message_end", message: assistantMessage([{ type: "text", text }], "stop") }), ...runEnd());
  await run.finish();
}

async function answer(prompt: string, text: string): Promise<void> {
  await streamAnswer(prompt, text);
  await endAnswer(text);
}

async function mermaidRequests(): Promise<number> {
  return page.evaluate(
    () => performance.getEntriesByType("resource").filter((entry) => /mermaid/i.test(entry.name)).length,
  );
}

const FORMULA = "The roots of $ax^2 + bx + c = 0$ are\n\n$$\nx = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}\n$$\n\nfor $a \\neq 0$; it costs $5 or $10.";
const DIAGRAM = "```mermaid\ngraph LR\n  A[Question] --> B{Known?}\n  B -->|yes| C[Answer]\n  B -->|no| D[Search files]\n  D --> C\n```";

describe("math", () => {
  it("typesets formulas with KaTeX's bundled fonts and its layout under the CSP", async () => {
    await answer("Solve a quadratic", FORMULA);
    const message = page.getByTestId("message-assistant");
    await message.locator(".math-display .katex .mfrac").waitFor();
    await expect(message.locator(".math-inline .katex").count()).resolves.toBe(2);
    await expect(message.getByTestId("assistant-text").textContent()).resolves.toContain("it costs $5 or $10.");
    const layout = await page.evaluate(async () => {
      await document.fonts.ready;
      const strut = document.querySelector<HTMLElement>(".math-display .katex-strut");
      const fonts = [...document.fonts].filter((face) => face.family.includes("KaTeX") && face.status === "loaded");
      return {
        strutHeight: strut === null ? "" : strut.style.height,
        strutComputed: Math.max(
          ...[...document.querySelectorAll(".math-display .katex-strut")].map((node) => node.getBoundingClientRect().height),
        ),
        fontsLoaded: fonts.map((face) => face.family),
      };
    });
    expect(layout.strutHeight).toMatch(/em$/);
    expect(layout.strutComputed).toBeGreaterThan(30);
    expect(layout.fontsLoaded).toContain("KaTeX_Main");
  });

  it("keeps hostile formulas inert", async () => {
    await answer(
      "Hostile math",
      [
        "$\\href{javascript:window.__pwned=1}{click}$ $\\url{https://evil.example}$",
        "",
        "$\\htmlClass{md-link}{a}$ $\\htmlStyle{position:fixed;inset:0;background:red}{b}$ $\\htmlId{root}{c}$",
        "",
        "$\\includegraphics{https://evil.example/x.png}$ $\\rule{100000em}{100000em}$",
        "",
        "$\\def\\a{\\a\\a}\\a$",
      ].join("\n"),
    );
    const message = page.getByTestId("message-assistant");
    await message.locator(".katex-error").first().waitFor();
    await expect(message.locator("[href], img, [id], script").count()).resolves.toBe(0);
    const widest = await message.evaluate((element) =>
      Math.max(...[...element.querySelectorAll(".katex *")].map((node) => node.getBoundingClientRect().width)),
    );
    expect(widest).toBeLessThan(1100);
    for (const error of await message.locator(".katex-error").all()) await error.click();
    await expect(page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
    expect(new URL(page.url()).origin).toBe(new URL(server.url).origin);
  });
});

describe("diagrams", () => {
  it("shows the code while the fence streams, loads Mermaid only then and draws the closed diagram", async () => {
    expectedRefusals = INLINE_STYLE_REFUSALS;
    await answer("No diagram", "Plain text, `code` and $x$.");
    await page.getByTestId("message-assistant").locator(".katex").waitFor();
    expect(await mermaidRequests()).toBe(0);

    const [opening, rest] = [DIAGRAM.slice(0, 40), DIAGRAM.slice(40, -3)];
    await streamAnswer("Draw it", "Here is the flow:\n\n", opening, rest);
    const streaming = page.getByTestId("message-assistant").last();
    await streaming.locator(".code-block.code-open code", { hasText: "Search files" }).waitFor();
    await expect(streaming.locator("svg").count()).resolves.toBe(0);
    expect(await mermaidRequests()).toBe(0);

    await run.send(update({ type: "text_delta", contentIndex: 0, delta: "```" }));
    await endAnswer(`Here is the flow:\n\n${DIAGRAM}`);
    const diagram = streaming.locator(".mermaid-diagram svg");
    await diagram.waitFor();
    expect(await mermaidRequests()).toBeGreaterThan(0);
    await expect(diagram.textContent()).resolves.toMatch(/Question.*Known\?.*Answer.*Search files/);
    const drawn = await diagram.evaluate((svg) => {
      const shape = svg.querySelector(".node rect, .node polygon, .node path");
      return {
        fill: shape === null ? "" : getComputedStyle(shape).fill,
        width: svg.getBoundingClientRect().width,
      };
    });
    expect(drawn.fill).not.toMatch(/^(|none|rgb\(0, 0, 0\))$/);
    expect(drawn.width).toBeGreaterThan(200);
    await expect(streaming.locator(".code-block.mermaid-drawn pre").isVisible()).resolves.toBe(false);
  });

  it("shows a diagram Mermaid cannot draw as its code with the error", async () => {
    expectedRefusals = INLINE_STYLE_REFUSALS;
    await answer("Broken", "```mermaid\ngraph LR\n  A --> \n  ((( nope\n```\n");
    const block = page.getByTestId("message-assistant").locator(".code-block.mermaid-failed");
    await block.locator(".mermaid-error").waitFor();
    await expect(block.locator("pre code").textContent()).resolves.toContain("((( nope");
    await expect(block.locator("pre").isVisible()).resolves.toBe(true);
    await expect(block.locator(".mermaid-error").textContent()).resolves.toMatch(/\S/);
    await expect(block.locator("svg").count()).resolves.toBe(0);
  });

  it("keeps hostile diagrams inert: no click callback, script, link, foreign HTML or page-wide style", async () => {
    // Mermaid's measuring pass parses a label's markup in the page, where the CSP refuses its event handlers too.
    expectedRefusals = [...INLINE_STYLE_REFUSALS, "script-src-attr inline"];
    const hostile = [
      "```mermaid",
      "graph TD",
      '  A["<script>window.__pwned=1</script>"] --> B["<img src=x onerror=window.__pwned=2>"]',
      '  B --> C["<a href=javascript:window.__pwned=3>link</a>"]',
      "  click A call alert(1)",
      '  click B href "javascript:window.__pwned=4"',
      "  click C callback",
      "  classDef evil fill:#f00}body{display:none}#x{color:red",
      "  class A evil",
      "```",
      "",
      "```mermaid",
      "%%{init: {\"securityLevel\": \"loose\", \"themeCSS\": \"body { display: none }\", \"htmlLabels\": true}}%%",
      "graph LR",
      '  D["<b onmouseover=window.__pwned=5>bold</b>"] --> E',
      '  click D "https://evil.example"',
      "```",
    ].join("\n");
    await answer("Hostile diagrams", hostile);
    const message = page.getByTestId("message-assistant");
    await expect.poll(() => message.locator(".mermaid-diagram svg, .mermaid-error").count(), { timeout: 20_000 }).toBe(2);
    await expect(message.locator("script, img, foreignObject, a, iframe, [href], [src]").count()).resolves.toBe(0);
    const handlers = await message.evaluate((element) =>
      [...element.querySelectorAll("*")].flatMap((node) => node.getAttributeNames().filter((name) => name.startsWith("on"))),
    );
    expect(handlers).toEqual([]);
    for (const node of await message.locator(".mermaid-diagram .node").all()) await node.click({ force: true });
    await expect(page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
    await expect(page.evaluate(() => getComputedStyle(document.body).display)).resolves.not.toBe("none");
    expect(new URL(page.url()).origin).toBe(new URL(server.url).origin);
  });

  it("puts a formula and a diagram in one answer (screenshot)", async () => {
    expectedRefusals = INLINE_STYLE_REFUSALS;
    await answer("Show me a formula and a diagram", `${FORMULA}\n\n${DIAGRAM}\n`);
    await page.getByTestId("message-assistant").locator(".mermaid-diagram svg").waitFor();
    await page.evaluate(() => document.fonts.ready);
    await page.screenshot({ path: join(ARTIFACTS, "math-and-diagram.png") });
  });
});

describe("images", () => {
  it("loads no network image; Show image asks the host and shows what it checked, or why not", async () => {
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    await answer("A picture", "A cat: ![a cat](https://example.com/cat.png) and ![broken](https://example.com/broken.png)");
    const message = page.getByTestId("message-assistant");
    const cat = message.locator(".md-image", { hasText: "[a cat]" });
    await cat.locator("button.md-image-show").waitFor();
    await expect(message.locator("img").count()).resolves.toBe(0);

    await cat.locator("button.md-image-show").click();
    const shown = cat.locator("img.md-image-shown");
    await shown.waitFor();
    await expect(shown.getAttribute("src")).resolves.toMatch(/^data:image\/png;base64,/);
    await expect(shown.getAttribute("alt")).resolves.toBe("[a cat]");
    await expect.poll(() => shown.evaluate((image: HTMLImageElement) => image.naturalWidth)).toBe(1);
    const broken = message.locator(".md-image", { hasText: "[broken]" });
    await broken.locator("button.md-image-show").click();
    await expect(broken.locator(".md-image-error").textContent()).resolves.toBe(
      "Could not show the image: It is not a web address, is larger than 8 MB, or is not a PNG, JPEG, GIF or WebP picture. (example.com sent text/html, not a PNG, JPEG, GIF or WebP image)",
    );
    await expect(broken.locator("img").count()).resolves.toBe(0);

    const asked = await page.evaluate(() =>
      window.__chatMock.calls.filter((call) => call.cmd === "fetch_image").map((call) => call.args["url"]),
    );
    expect(asked).toEqual(["https://example.com/cat.png", "https://example.com/broken.png"]);
    expect(requests.filter((url) => url.includes("example.com"))).toEqual([]);
  });
});

describe("links", () => {
  it("shows the full URL, opens it through the opener and never navigates the page", async () => {
    await answer(
      "Links please",
      "See [the docs](https://example.com/docs?page=2), <https://example.org>, [mail](mailto:ada@example.com) and [local](file:///etc/passwd).",
    );
    const message = page.getByTestId("message-assistant");
    const docs = message.locator("a.md-link", { hasText: "the docs" });
    await docs.waitFor();
    await expect(docs.getAttribute("title")).resolves.toBe("https://example.com/docs?page=2");
    await expect(message.locator(".md-link-url").allTextContents()).resolves.toEqual([
      "https://example.com/docs?page=2",
      "mailto:ada@example.com",
    ]);
    const before = page.url();
    const pages = page.context().pages().length;

    await docs.click();
    await message.locator("a.md-link", { hasText: "https://example.org" }).click({ button: "middle" });
    await message.locator("a.md-link", { hasText: "local" }).click();
    await docs.press("Enter");
    await page.waitForFunction(
      () => window.__chatMock.calls.filter((call) => call.cmd === "plugin:opener|open_url").length >= 2,
    );

    expect(page.url()).toBe(before);
    expect(page.context().pages()).toHaveLength(pages);
    const opened = await page.evaluate(() =>
      window.__chatMock.calls.filter((call) => call.cmd === "plugin:opener|open_url").map((call) => call.args["url"]),
    );
    expect(opened).toEqual(["https://example.com/docs?page=2", "https://example.com/docs?page=2"]);
  });
});
