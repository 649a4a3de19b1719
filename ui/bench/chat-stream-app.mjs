// Benchmark (reported, not asserted): the whole chat window streaming a 1 MB answer in headless Chromium.
// The built UI (ui/dist) runs against the tests' mock backend; each step delivers one text_delta envelope on
// the run's Channel and waits two animation frames, so the reducer, React, the incremental Markdown render,
// style, layout, paint and auto-scroll all happen. Chromium's own counters (CDP Performance.getMetrics) give
// the main-thread busy time per step, reported per tenth of the answer: it must stay flat as the answer grows.
//
//   npm run build && node bench/chat-stream-app.mjs [totalBytes=1048576] [chunkBytes=512]
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";
import { chromium } from "playwright-core";

const totalBytes = Number(process.argv[2] ?? 1024 * 1024);
const chunkBytes = Number(process.argv[3] ?? 512);
const DIST = fileURLToPath(new URL("../dist/", import.meta.url));
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".png": "image/png" };

function answer(bytes) {
  const parts = [];
  let size = 0;
  for (let index = 0; size < bytes; index += 1) {
    const part = [
      `## Section ${index}`,
      "",
      `Item **${index}** with \`code\`, a [link](https://example.com/${index}) and ordinary prose that wraps`,
      "over a couple of lines, the way a long answer reads.",
      "",
      `- first point about ${index}`,
      "- second point, with *emphasis*",
      "",
      "```python",
      `def item_${index}(path):`,
      "    return open(path).read()",
      "```",
      "",
      "| name | size |",
      "| --- | ---: |",
      `| report-${index}.pdf | 2.3 MB |`,
      "",
    ].join("\n");
    parts.push(part);
    size += part.length;
  }
  return parts.join("").slice(0, bytes);
}

const mock = await build({
  entryPoints: [fileURLToPath(new URL("../tests/browser/chat-mock-backend.ts", import.meta.url))],
  bundle: true,
  format: "iife",
  platform: "browser",
  target: "es2022",
  write: false,
  logLevel: "silent",
});

const server = createServer((request, response) => {
  const path = new URL(request.url ?? "/", "http://localhost").pathname;
  const file = normalize(join(DIST, path === "/" ? "index.html" : path));
  readFile(file).then(
    (body) => response.writeHead(200, { "Content-Type": TYPES[extname(file)] ?? "application/octet-stream" }).end(body),
    () => response.writeHead(404).end(),
  );
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox"] });
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
  await page.addInitScript({ content: mock.outputFiles[0].text });
  await page.goto(url);
  await page.getByTestId("composer-input").fill("Write a very long answer");
  await page.getByTestId("composer-input").press("Enter");
  await page.waitForFunction(() => window.__chatMock.hasRun());

  await page.evaluate(() => {
    let seq = 0;
    const send = (body) => {
      seq += 1;
      window.__chatMock.send({ v: 1, seq, ...body });
    };
    const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
    const assistant = { role: "assistant", content: [], api: "bench", provider: "bench", model: "bench", usage, stopReason: "pending" };
    send({ kind: "event", event: { type: "agent_start" } });
    send({ kind: "event", event: { type: "turn_start" } });
    send({ kind: "event", event: { type: "message_start", message: { role: "user", content: "Write a very long answer" } } });
    send({ kind: "event", event: { type: "message_start", message: assistant } });
    send({ kind: "event", event: { type: "message_update", assistantMessageEvent: { type: "text_start", contentIndex: 0 } } });
    window.__benchDelta = (delta) => {
      send({ kind: "event", event: { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta } } });
      return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
    };
  });

  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const metrics = async () => {
    const { metrics: list } = await cdp.send("Performance.getMetrics");
    return Object.fromEntries(list.map((metric) => [metric.name, metric.value]));
  };

  const text = answer(totalBytes);
  const steps = Math.ceil(text.length / chunkBytes);
  const perTenth = Math.ceil(steps / 10);
  console.log(`answer: ${text.length} chars in ${steps} steps of ${chunkBytes} chars (one envelope + two frames each)`);
  console.log("main-thread busy time per step (ms), from Chromium's counters:");
  console.log("  progress     task   script   layout    style");
  let step = 0;
  for (let tenth = 0; tenth < 10 && step < steps; tenth += 1) {
    const before = await metrics();
    let count = 0;
    for (; count < perTenth && step < steps; count += 1, step += 1) {
      await page.evaluate((delta) => window.__benchDelta(delta), text.slice(step * chunkBytes, (step + 1) * chunkBytes));
    }
    const after = await metrics();
    const per = (name) => (((after[name] - before[name]) * 1000) / count).toFixed(2).padStart(7);
    const label = `${tenth * 10}-${tenth * 10 + 10}%`.padEnd(10);
    console.log(`  ${label} ${per("TaskDuration")}  ${per("ScriptDuration")}  ${per("LayoutDuration")}  ${per("RecalcStyleDuration")}`);
  }
  const nodes = await page.evaluate(() => document.querySelectorAll(".md-block").length);
  const shown = await page.evaluate(() => document.querySelector('[data-testid="assistant-text"]')?.textContent?.length ?? 0);
  console.log(`rendered blocks in the DOM: ${nodes}; visible answer text: ${shown} chars`);
} finally {
  await browser.close();
  server.close();
}
