// The measured part of bench/markdown-stream.mjs, bundled for node+jsdom or for Chromium: stream a text
// through the incremental renderer one chunk per frame and time every frame.
import { StreamingMarkdown, renderMarkdown, streamedHtml } from "../src/markdown/render";

export interface FrameResult {
  frameTimes: number[];
  pages: number;
  tailBlocks: number;
  equalsOneShot: boolean;
  oneShotMs: { fraction: number; chars: number; ms: number }[];
}

export function measure(text: string, chunk: number, oneShotFractions: number[]): FrameResult {
  const renderer = new StreamingMarkdown();
  const frameTimes: number[] = [];
  let last = renderer.update("");
  for (let end = chunk; end < text.length + chunk; end += chunk) {
    const start = performance.now();
    last = renderer.update(text.slice(0, Math.min(end, text.length)));
    frameTimes.push(performance.now() - start);
  }
  const oneShotMs = oneShotFractions.map((fraction) => {
    const prefix = text.slice(0, Math.floor(text.length * fraction));
    const start = performance.now();
    renderMarkdown(prefix);
    return { fraction, chars: prefix.length, ms: performance.now() - start };
  });
  return {
    frameTimes,
    pages: last.pages.length,
    tailBlocks: last.tail.length,
    equalsOneShot: streamedHtml(last) === renderMarkdown(text),
    oneShotMs,
  };
}
