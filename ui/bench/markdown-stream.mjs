// Benchmark (reported, not asserted): the per-frame cost of rendering a 1 MB Markdown answer as it streams.
// Each frame appends one chunk and asks the incremental renderer (src/markdown/render.ts) for the new render,
// which is what MarkdownView does at most once per animation frame: lex and render the unfinished tail, render
// newly finished blocks once, sanitise both with DOMPurify. The cost must stay flat as the answer grows. For
// contrast, one-shot renders of the whole text so far (what a naive renderer would redo every frame).
//
//   node bench/markdown-stream.mjs [chromium|jsdom] [totalBytes=1048576] [chunkBytes=256] [plain|rich]
// rich: every section also holds inline and display math, a Mermaid fence and a C fence (the kinds that are
// typeset or highlighted once finished), so their cost shows beside the plain answer's.
// chromium (default): Debian's headless Chromium via playwright-core, the engine closest to the webview.
// jsdom: node with jsdom as the DOM (much slower DOM parsing inside DOMPurify).
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

const engine = process.argv[2] ?? "chromium";
const totalBytes = Number(process.argv[3] ?? 1024 * 1024);
const chunkBytes = Number(process.argv[4] ?? 256);
const rich = process.argv[5] === "rich";
const ONE_SHOT_FRACTIONS = engine === "jsdom" ? [0.1] : [0.1, 0.5, 1];

/** A deterministic answer of about `bytes` characters mixing the constructs models write. */
function answer(bytes) {
  const sections = [];
  let size = 0;
  for (let index = 0; size < bytes; index += 1) {
    const section = [
      `## Section ${index}: files and folders`,
      "",
      `This paragraph explains item **${index}** with \`inline code\`, a [link](https://example.com/${index}) and some`,
      "ordinary prose that wraps over a couple of lines, the way a long model answer usually reads in practice.",
      "",
      `- first point about ${index}`,
      "- second point, with *emphasis*",
      "  continued on the next line",
      "",
      "```python",
      `def item_${index}(path):`,
      "    with open(path) as handle:",
      "        return [line.strip() for line in handle if line]",
      "```",
      "",
      "| name | size | modified |",
      "| --- | ---: | --- |",
      `| report-${index}.pdf | 2.3 MB | 2024-11-28 |`,
      `| notes-${index}.md | 3.8 KB | 2024-11-19 |`,
      "",
      "> A short quote to close the section.",
      "",
      ...(rich ? richSection(index) : []),
    ].join("\n");
    sections.push(section);
    size += section.length;
  }
  return sections.join("").slice(0, bytes);
}

function richSection(index) {
  return [
    `The area is $\\pi r^2$ for $r = ${index}$, and it costs $5 or $10 in prose.`,
    "",
    "$$",
    `\\sum_{k=1}^{${index}} \\frac{1}{k^2} \\le \\frac{\\pi^2}{6}`,
    "$$",
    "",
    "```mermaid",
    `graph TD; A${index}[Start] --> B${index}{Check}; B${index} -->|yes| C${index}[Done]`,
    "```",
    "",
    "```c",
    `int item_${index}(const char *path) { return path[0] == '/' ? ${index} : -1; }`,
    "```",
    "",
  ];
}

async function bundle(format) {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./markdown-stream-frames.ts", import.meta.url))],
    bundle: true,
    format,
    globalName: format === "iife" ? "piBench" : undefined,
    platform: format === "iife" ? "browser" : "node",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0].text;
}

async function runInChromium(text) {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox"] });
  try {
    const page = await browser.newPage();
    await page.addScriptTag({ content: await bundle("iife") });
    return await page.evaluate(
      ([source, chunk, fractions]) => window.piBench.measure(source, chunk, fractions),
      [text, chunkBytes, ONE_SHOT_FRACTIONS],
    );
  } finally {
    await browser.close();
  }
}

async function runInJsdom(text) {
  const { JSDOM } = await import("jsdom");
  // DOMPurify binds to the global window when its module is evaluated, so the DOM comes first.
  const { window } = new JSDOM("<!doctype html><html><body></body></html>");
  globalThis.window = window;
  globalThis.document = window.document;
  const code = await bundle("esm");
  const module = await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
  try {
    return module.measure(text, chunkBytes, ONE_SHOT_FRACTIONS);
  } finally {
    window.close();
  }
}

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

const text = answer(totalBytes);
const result = engine === "jsdom" ? await runInJsdom(text) : await runInChromium(text);
const { frameTimes } = result;

console.log(`engine: ${engine}; ${rich ? "rich" : "plain"} answer: ${text.length} chars streamed in ${frameTimes.length} frames of ${chunkBytes} chars`);
console.log("per-frame cost of the incremental render, by how far the answer has grown (ms):");
console.log("  progress     median      p95      max");
const tenth = Math.ceil(frameTimes.length / 10);
for (let decile = 0; decile < 10; decile += 1) {
  const slice = frameTimes.slice(decile * tenth, (decile + 1) * tenth).sort((a, b) => a - b);
  if (slice.length === 0) continue;
  const label = `${decile * 10}-${decile * 10 + 10}%`.padEnd(10);
  const cells = [percentile(slice, 0.5), percentile(slice, 0.95), slice[slice.length - 1]].map((value) =>
    value.toFixed(3).padStart(8),
  );
  console.log(`  ${label} ${cells.join(" ")}`);
}
const all = [...frameTimes].sort((a, b) => a - b);
const overall = [percentile(all, 0.5), percentile(all, 0.95), all[all.length - 1]].map((value) =>
  value.toFixed(3).padStart(8),
);
console.log(`  ${"all".padEnd(10)} ${overall.join(" ")}`);
const total = frameTimes.reduce((sum, value) => sum + value, 0);
console.log(`total: ${total.toFixed(0)} ms; finished pages: ${result.pages}; blocks left in the tail: ${result.tailBlocks}`);
console.log(`incremental render equals the one-shot render of the final text: ${result.equalsOneShot}`);
console.log("one-shot render of the whole text so far, for contrast (a naive renderer pays this every frame):");
for (const { fraction, chars, ms } of result.oneShotMs) {
  console.log(`  at ${String(fraction * 100).padStart(3)}% (${chars} chars): ${ms.toFixed(1)} ms`);
}
