// @vitest-environment jsdom
import { describe, expect, it } from "vitest";

import { MarkdownDom } from "./markdown-dom";
import { MarkdownParts } from "./markdown-parts";
import { renderMarkdown } from "./render";
import { PAGE_SIZE } from "./render-protocol";

/** Renders each text completely, as the view's renderer does, and returns its parts. */
class Parts {
  private readonly parts = new MarkdownParts();
  update(text: string) {
    return this.parts.next(text, Number.POSITIVE_INFINITY);
  }
}

function paragraphs(count: number): string {
  return Array.from({ length: count }, (_, index) => `Paragraph ${index}.`).join("\n\n");
}

describe("MarkdownDom", () => {
  it("shows nothing until commit, then the same HTML as the one-shot render, in pages", () => {
    const root = document.createElement("div");
    const view = new MarkdownDom(root);
    const renderer = new Parts();
    const text = paragraphs(PAGE_SIZE * 2 + 5);
    view.stage(renderer.update(text));
    expect(root.childElementCount).toBe(0);
    view.commit();
    // Two full pages and one with the other four finished paragraphs.
    expect(root.querySelectorAll(":scope > .md-page")).toHaveLength(3);
    expect(root.querySelectorAll(":scope > .md-page > .md-block")).toHaveLength(PAGE_SIZE * 2 + 4);
    // The unfinished last paragraph is the tail, after the pages.
    expect(root.lastElementChild?.className).toBe("md-block");
    expect(root.lastElementChild?.textContent?.trim()).toBe(`Paragraph ${PAGE_SIZE * 2 + 4}.`);
    expect(root.querySelectorAll(".md-block")).toHaveLength(PAGE_SIZE * 2 + 5);
    expect(Array.from(root.querySelectorAll(".md-block"), (block) => block.innerHTML).join("")).toBe(
      renderMarkdown(text),
    );
  });

  it("appends only what was finished since the last commit and replaces the tail", () => {
    const root = document.createElement("div");
    const view = new MarkdownDom(root);
    const renderer = new Parts();
    view.stage(renderer.update("One.\n\nTwo"));
    view.commit();
    const first = root.querySelector(".md-page > .md-block");
    view.stage(renderer.update("One.\n\nTwo.\n\nThree"));
    view.commit();
    expect(root.querySelector(".md-page > .md-block")).toBe(first);
    expect(Array.from(root.querySelectorAll(".md-block"), (block) => block.textContent?.trim())).toEqual([
      "One.",
      "Two.",
      "Three",
    ]);
  });

  it("starts over when the text was replaced", () => {
    const root = document.createElement("div");
    const view = new MarkdownDom(root);
    const renderer = new Parts();
    view.stage(renderer.update("Old one.\n\nOld two.\n\n"));
    view.commit();
    view.stage(renderer.update("New."));
    view.commit();
    expect(root.textContent?.trim()).toBe("New.");
  });

  it("puts only sanitised markup into the DOM", () => {
    const root = document.createElement("div");
    const view = new MarkdownDom(root);
    const renderer = new Parts();
    view.stage(renderer.update('<img src=x onerror="alert(1)">\n\n[x](javascript:alert(1))\n\n<script>alert(1)</script>\n\n'));
    view.commit();
    expect(root.querySelector("img, script, [onerror], a[href]")).toBeNull();
    expect(root.textContent).toContain('<img src=x onerror="alert(1)">');
  });
});

describe("MarkdownParts", () => {
  it("hands each finished block over once, across pages, and starts over with a new epoch", () => {
    const parts = new MarkdownParts();
    const text = paragraphs(PAGE_SIZE + 3);
    const first = parts.next(text, 0);
    const all = [...first.added];
    let last = first;
    while (!last.complete) {
      last = parts.next(text, 0);
      all.push(...last.added);
    }
    expect(all).toHaveLength(PAGE_SIZE + 2);
    expect(new Set(all).size).toBe(all.length);
    expect(last.tail).toHaveLength(1);
    expect(parts.next(text, Number.POSITIVE_INFINITY).added).toEqual([]);
    const replaced = parts.next("Other.\n\nText.", Number.POSITIVE_INFINITY);
    expect(replaced.epoch).not.toBe(last.epoch);
    expect(replaced.added).toHaveLength(1);
  });
});
