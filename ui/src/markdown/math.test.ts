// @vitest-environment jsdom
import { describe, expect, it } from "vitest";

import { MAX_SIZE_EM, inlineMathAt, mathBlockAt } from "./math";
import { LEX_WINDOW, StreamingMarkdown, renderMarkdown, streamedHtml } from "./render";

function dom(html: string): HTMLElement {
  const element = document.createElement("div");
  element.innerHTML = html;
  return element;
}

function streamInChunks(text: string, chunk: number): string {
  const renderer = new StreamingMarkdown();
  let last = renderer.update("");
  for (let end = chunk; end < text.length + chunk; end += chunk) {
    last = renderer.update(text.slice(0, Math.min(end, text.length)));
  }
  return streamedHtml(last);
}

describe("the math tokenizer", () => {
  it("reads $…$, \\(…\\), $$…$$ and \\[…\\] inline, displaying the last two", () => {
    expect(inlineMathAt("$x^2$ rest")).toMatchObject({ raw: "$x^2$", text: "x^2", display: false });
    expect(inlineMathAt("\\(a+b\\) rest")).toMatchObject({ raw: "\\(a+b\\)", text: "a+b", display: false });
    expect(inlineMathAt("$$\\sum_k k$$ rest")).toMatchObject({ text: "\\sum_k k", display: true });
    expect(inlineMathAt("\\[x\\] rest")).toMatchObject({ raw: "\\[x\\]", text: "x", display: true });
    expect(inlineMathAt("$a \\$ b$")).toMatchObject({ text: "a \\$ b" });
  });

  it("leaves prices and stray dollars alone", () => {
    for (const text of ["$5 and $10", "$ x$", "$x $", "$x$5", "$$", "$", "$\n$", "$20,000 and $30,000", "$a` b`$"]) {
      expect(inlineMathAt(text), text).toBeUndefined();
    }
  });

  it("reads a block from an opening line to a line that ends with the closing delimiter", () => {
    expect(mathBlockAt("$$\na = b\n$$\nafter")).toMatchObject({ raw: "$$\na = b\n$$\n", text: "a = b", open: false });
    expect(mathBlockAt("\\[\nx\n\\]\n")).toMatchObject({ text: "x", open: false });
    expect(mathBlockAt("$$ e^{i\\pi} $$\n")).toMatchObject({ text: "e^{i\\pi}", open: false });
    expect(mathBlockAt("$$\na\n\nb = c$$\nmore")).toMatchObject({ raw: "$$\na\n\nb = c$$\n", open: false });
  });

  it("keeps an unclosed block open to the end of the text, like an unclosed fence", () => {
    expect(mathBlockAt("$$\na\n\n- b\n")).toMatchObject({ raw: "$$\na\n\n- b\n", open: true });
    expect(mathBlockAt("$$a$$ b$$\n")).toBeUndefined();
    expect(mathBlockAt("$$x + y\n")).toBeUndefined();
    expect(mathBlockAt("text $$\n")).toBeUndefined();
  });
});

describe("math in Markdown", () => {
  it("typesets inline and display math with KaTeX", () => {
    const element = dom(renderMarkdown("Euler: $e^{i\\pi} + 1 = 0$ and \\(a^2\\).\n\n$$\n\\frac{1}{2}\n$$\n"));
    expect(element.querySelectorAll(".math-inline .katex")).toHaveLength(2);
    expect(element.querySelector("div.math-display .katex .mfrac")).not.toBeNull();
    expect(element.textContent).not.toContain("$");
  });

  it("keeps prices, escaped dollars and code as text", () => {
    const element = dom(renderMarkdown("It costs $5 and $10, or \\$3 each.\n\nIn code: `$x$` and `a$` b `$c`.\n\n```\n$y$\n```\n"));
    expect(element.querySelector(".katex")).toBeNull();
    expect(element.textContent).toContain("It costs $5 and $10, or $3 each.");
    expect(element.textContent).toContain("In code: $x$ and a$ b $c.");
  });

  it("shows an unclosed block as its source until it closes", () => {
    expect(dom(renderMarkdown("$$\n\\sum_k")).querySelector("pre.math-source")?.textContent).toBe("$$\n\\sum_k");
    expect(dom(renderMarkdown("$$\n\\sum_k\n$$")).querySelector(".math-display .katex")).not.toBeNull();
  });

  it("shows a formula KaTeX cannot parse as its source with the error", () => {
    const error = dom(renderMarkdown("$\\frac{1}{$ and $x^$")).querySelector(".katex-error");
    expect(error?.textContent).toBe("\\frac{1}{");
    expect(error?.getAttribute("title")).toMatch(/ParseError/);
  });
});

describe("math rendered incrementally", () => {
  const MATH_DOCUMENT = [
    "Intro with $a^2 + b^2 = c^2$ and a price of $5 and $10.",
    "",
    "$$",
    "\\int_0^1 x\\,dx = \\frac{1}{2}",
    "$$",
    "",
    "- item with \\(x\\)",
    "- a list line inside a block next:",
    "",
    "\\[",
    "a",
    "",
    "- b",
    "# c",
    "\\]",
    "",
    "Last $$x$$ paragraph.",
    "",
    "$$ y = mx + b $$",
    "",
    "End.",
  ].join("\n");

  it("equals the one-shot render for every chunk size", () => {
    const expected = renderMarkdown(MATH_DOCUMENT);
    expect(dom(expected).querySelectorAll(".math").length).toBe(6);
    for (let chunk = 1; chunk <= 24; chunk += 1) {
      expect(streamInChunks(MATH_DOCUMENT, chunk), `chunk ${chunk}`).toBe(expected);
    }
  }, 60_000);

  it("renders a $$ block longer than a lexing window exactly like the one-shot render", () => {
    const lines = Array.from({ length: 300 }, (_, i) => (i % 9 === 0 ? "" : `x_{${i}} + \\alpha_{${i}} \\\\`));
    const block = ["$$", "\\begin{aligned}", ...lines, "\\end{aligned}", "$$"].join("\n");
    expect(block.length).toBeGreaterThan(LEX_WINDOW * 2);
    const parts: string[] = [];
    for (let index = 0; index < 12; index += 1) parts.push(`Paragraph ${index} with $x_${index}$.`, "");
    // The block starts just before a window boundary, so the first window holds only its opening lines.
    const before = parts.join("\n");
    const padding = "p".repeat(Math.max(0, LEX_WINDOW - before.length - 40));
    const text = `${before}${padding}\n\n${block}\n\n- after the block\n\nThe end with $y$.\n`;
    const expected = renderMarkdown(text);
    expect(dom(expected).querySelector(".math-display .katex")).not.toBeNull();
    const whole = new StreamingMarkdown().update(text);
    expect(streamedHtml(whole)).toBe(expected);
    for (const chunk of [7, 256, 1000]) expect(streamInChunks(text, chunk), `chunk ${chunk}`).toBe(expected);
  }, 60_000);
});

describe("hostile math stays inert", () => {
  it("makes no link, class, id, style or data attribute from \\href, \\url and the \\html commands", () => {
    const element = dom(
      renderMarkdown(
        [
          "$\\href{javascript:alert(1)}{click}$",
          "$\\url{https://evil.example}$",
          "$\\htmlClass{md-link}{x}$ $\\htmlId{app}{y}$ $\\htmlStyle{position:fixed;inset:0}{z}$",
          "$\\htmlData{foo=bar}{w}$ $\\includegraphics{https://evil.example/a.png}$",
        ].join("\n\n"),
      ),
    );
    expect(element.querySelector("a, img, [id], [data-foo]")).toBeNull();
    expect(element.innerHTML).not.toMatch(/javascript:|evil\.example\/a\.png|position:\s*fixed|inset/);
    expect(element.querySelectorAll(".katex-error, .katex").length).toBeGreaterThanOrEqual(7);
    for (const node of element.querySelectorAll("[class]")) {
      expect(node.getAttribute("class")).not.toBe("md-link");
    }
  });

  it("caps huge sizes and stops macro bombs with an error", () => {
    const rule = dom(renderMarkdown("$\\rule{100000em}{100000em}\\kern{99999em}$"));
    const sizes = [...rule.querySelectorAll("[data-pi-style]")].flatMap((node) =>
      [...(node.getAttribute("data-pi-style") ?? "").matchAll(/(-?[\d.]+)em/g)].map((match) => Math.abs(Number(match[1]))),
    );
    expect(sizes.length).toBeGreaterThan(0);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_SIZE_EM * 2);
    const started = performance.now();
    const bomb = dom(renderMarkdown("$\\def\\a{\\a\\a}\\a$ $\\def\\b#1{#1#1}\\b{\\b{\\b{\\b{\\b{\\b{\\b{\\b{\\b{\\b{x}}}}}}}}}}$"));
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(bomb.querySelectorAll(".katex-error").length).toBeGreaterThanOrEqual(1);
  });

  it("keeps only plain layout declarations in KaTeX's styles", () => {
    const element = dom(renderMarkdown("$\\color{red}{x} \\textcolor{url(javascript:x)}{y} \\colorbox{blue}{z}$"));
    expect(element.querySelector("[style]")).toBeNull();
    const styles = [...element.querySelectorAll("[data-pi-style]")].map((node) => node.getAttribute("data-pi-style") ?? "");
    expect(styles.length).toBeGreaterThan(0);
    expect(styles.join(";")).not.toMatch(/url\(|javascript|expression/i);
  });
});
