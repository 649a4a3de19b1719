// @vitest-environment jsdom
import { describe, expect, it } from "vitest";

import {
  LEX_WINDOW,
  StreamingMarkdown,
  mayBeSetextHeading,
  renderMarkdown,
  streamedHtml,
} from "./render";
import { PAGE_SIZE } from "./render-protocol";

/** Renders `html` into a detached element, so tests inspect the DOM the app would get. */
function dom(html: string): HTMLElement {
  const element = document.createElement("div");
  element.innerHTML = html;
  return element;
}

/** Streams `text` in chunks of `chunk` characters and returns the final incremental HTML. */
function streamInChunks(text: string, chunk: number): string {
  const renderer = new StreamingMarkdown();
  let last = renderer.update("");
  for (let end = chunk; end < text.length + chunk; end += chunk) {
    last = renderer.update(text.slice(0, Math.min(end, text.length)));
  }
  return streamedHtml(last);
}

const RICH_DOCUMENT = [
  "# Files in Downloads",
  "",
  "Here is what I found, **sorted** by _date_:",
  "",
  "- report.pdf (2 MB)",
  "- notes.txt",
  "  continued line of the item",
  "",
  "  a second paragraph in the item",
  "- photo.jpg",
  "",
  "1. first",
  "2. second",
  "",
  "> a quote",
  "> over two lines",
  "",
  "| name | size |",
  "| --- | ---: |",
  "| a.pdf | 1 KB |",
  "| b.txt | 2 KB |",
  "",
  "```python",
  "def hello():",
  "    return 'hi'  # <b>not html</b>",
  "```",
  "Text right after a fence.",
  "Heading by underline",
  "---",
  "",
  "    indented code",
  "    more indented code",
  "",
  "~~~",
  "tilde fence",
  "~~~",
  "",
  "A [link](https://example.com) and `code`, then <span>inline html</span>.",
  "",
  "- [x] done task",
  "- [ ] open task",
  "",
  "***",
  "",
  "Final paragraph without a newline at the end",
].join("\n");

describe("markdown rendering is safe", () => {
  it("shows a script tag as text and never creates a script element", () => {
    const element = dom(renderMarkdown("Hello <script>alert(1)</script> world\n\n<script>\nalert(2)\n</script>"));
    expect(element.querySelector("script")).toBeNull();
    expect(element.textContent).toContain("<script>alert(1)</script>");
  });

  it("keeps img onerror, svg onload and iframes inert", () => {
    const element = dom(
      renderMarkdown(
        [
          '<img src="x" onerror="alert(1)">',
          "",
          '<svg onload="alert(1)"><circle r="1"/></svg>',
          "",
          '<iframe src="https://evil.example"></iframe>',
          "",
          'inline <img src=x onerror=alert(1)> and <a href="javascript:alert(1)">x</a>',
        ].join("\n"),
      ),
    );
    expect(element.querySelector("img, svg, iframe, object, embed")).toBeNull();
    for (const node of element.querySelectorAll("*")) {
      for (const attribute of node.getAttributeNames()) {
        expect(attribute.startsWith("on")).toBe(false);
      }
    }
    expect(element.textContent).toContain('<iframe src="https://evil.example"></iframe>');
  });

  it("gives only web and mail links an href, shown in full beside a text that differs", () => {
    const element = dom(
      renderMarkdown(
        "[click](javascript:alert(1)) [data](data:text/html,hi) [file](file:///etc/passwd) [rel](/settings) " +
          "[web](https://example.com/a?b=1) <https://a.example> [mail](mailto:me@example.com) [JS](JAVASCRIPT:x)",
      ),
    );
    const links = [...element.querySelectorAll("a")];
    expect(links.map((link) => link.textContent)).toEqual([
      "click", "data", "file", "rel", "web", "https://a.example", "mail", "JS",
    ]);
    expect(links.map((link) => link.getAttribute("href"))).toEqual([
      null, null, null, null, "https://example.com/a?b=1", "https://a.example", "mailto:me@example.com", null,
    ]);
    expect(links.map((link) => link.getAttribute("title"))).toEqual([
      null, null, null, null, "https://example.com/a?b=1", "https://a.example", "mailto:me@example.com", null,
    ]);
    expect([...element.querySelectorAll(".md-link-url")].map((url) => url.textContent)).toEqual([
      "https://example.com/a?b=1",
      "mailto:me@example.com",
    ]);
    expect(element.innerHTML).not.toMatch(/javascript:|data:text|file:/i);
  });

  it("never loads an image, remote or inline; a web image gets a show button naming its URL", () => {
    const element = dom(
      renderMarkdown("![a cat](https://example.com/cat.png) ![dot](data:image/png;base64,AAAA) ![js](javascript:x)"),
    );
    expect(element.querySelector("img, [src]")).toBeNull();
    expect(element.textContent).toContain("[a cat]");
    const images = [...element.querySelectorAll(".md-image")];
    expect(images.map((image) => image.getAttribute("title"))).toEqual(["https://example.com/cat.png", null, null]);
    expect(images.map((image) => image.querySelector("button.md-image-show") !== null)).toEqual([true, false, false]);
    expect(element.innerHTML).not.toMatch(/data:image|javascript:/);
  });

  it("drops style attributes and event handlers even inside code", () => {
    const element = dom(renderMarkdown('```html\n<div style="color:red" onclick="x()">hi</div>\n```\n'));
    expect(element.querySelector("[style], [onclick]")).toBeNull();
    expect(element.querySelector("code")?.textContent).toBe('<div style="color:red" onclick="x()">hi</div>');
  });
});

describe("markdown rendering", () => {
  it("highlights a closed fence and adds a copy button", () => {
    const element = dom(renderMarkdown("```js\nconst answer = 42;\n```\n"));
    expect(element.querySelector("code.hljs.language-js")).not.toBeNull();
    expect(element.querySelector(".hljs-keyword")?.textContent).toBe("const");
    expect(element.querySelector("button.code-copy")).not.toBeNull();
    expect(element.querySelector("code")?.textContent).toBe("const answer = 42;");
  });

  it("leaves an unclosed fence unhighlighted until it closes", () => {
    const element = dom(renderMarkdown("```js\nconst answer = 42;\n"));
    expect(element.querySelector(".hljs-keyword")).toBeNull();
    expect(element.querySelector(".code-block.code-open code")?.textContent).toBe("const answer = 42;");
  });

  it("highlights C, C++, C#, Go, Java, Kotlin, Swift, PHP, Ruby and SQL by their usual fence names", () => {
    const samples: [string, string][] = [
      ["c", "int main(void) { return 0; }"],
      ["cpp", "template <typename T> class Box { public: T value; };"],
      ["c++", "namespace a { int x = 1; }"],
      ["csharp", "public class Program { static void Main() {} }"],
      ["cs", "using System; class A {}"],
      ["go", "package main\nfunc main() { return }"],
      ["java", "public final class A { private int x; }"],
      ["kotlin", "fun main() { val x = 1 }"],
      ["kt", "class A { fun b() = 1 }"],
      ["swift", "import Foundation\nstruct A { let x: Int }"],
      ["php", "<?php function a() { return 1; }"],
      ["ruby", "def a\n  return 1\nend"],
      ["rb", "class A; end"],
      ["sql", "SELECT name FROM users WHERE id = 1;"],
    ];
    for (const [language, code] of samples) {
      const element = dom(renderMarkdown(`\`\`\`${language}\n${code}\n\`\`\`\n`));
      expect(element.querySelector("code.hljs")?.className, language).toBe(`hljs language-${language}`);
      expect(element.querySelector(".hljs-keyword"), language).not.toBeNull();
      expect(element.querySelector("code")?.textContent, language).toBe(code.replaceAll("\\n", "\n"));
    }
  });

  it("leaves a Mermaid fence as code, marked for drawing once it is closed", () => {
    const open = dom(renderMarkdown("```mermaid\ngraph TD; A-->B\n"));
    expect(open.querySelector(".code-block.code-open:not(.mermaid-pending) code")?.textContent).toBe("graph TD; A-->B");
    const closed = dom(renderMarkdown("```mermaid\ngraph TD; A-->B\n```\n"));
    expect(closed.querySelector(".code-block.mermaid-pending code")?.textContent).toBe("graph TD; A-->B");
    expect(closed.querySelector("svg, .hljs")).toBeNull();
  });

  it("renders reference-style definitions as text, so later text never changes an earlier block", () => {
    const element = dom(renderMarkdown("see [docs]\n\n[docs]: https://example.com\n"));
    const [first, second] = [...element.querySelectorAll("p")];
    expect(first?.outerHTML).toBe("<p>see [docs]</p>");
    expect(second?.textContent).toBe("[docs]: https://example.com");
  });
});

describe("incremental markdown rendering", () => {
  it("equals the one-shot render for every chunk size", () => {
    const expected = renderMarkdown(RICH_DOCUMENT);
    for (const chunk of [1, 2, 3, 5, 7, 16, 64, 1000]) {
      expect(streamInChunks(RICH_DOCUMENT, chunk), `chunk ${chunk}`).toBe(expected);
    }
  }, 60_000);

  it("streams an unclosed fence, then highlights it when the fence closes", () => {
    const renderer = new StreamingMarkdown();
    const open = "Intro\n\n```rust\nfn main() {\n    println!(\"hi\");\n";
    const whileOpen = streamedHtml(renderer.update(open));
    expect(whileOpen).toBe(renderMarkdown(open));
    expect(dom(whileOpen).querySelector(".hljs-keyword")).toBeNull();

    const closed = `${open}}\n\`\`\`\n`;
    const afterClose = renderer.update(closed);
    expect(streamedHtml(afterClose)).toBe(renderMarkdown(closed));
    expect(dom(streamedHtml(afterClose)).querySelector(".hljs-keyword")?.textContent).toBe("fn");
    // The closed fence is finished: nothing is left in the re-rendered tail.
    expect(afterClose.tail).toEqual([]);
  });

  it("keeps finished pages identical and re-renders only the tail", () => {
    const renderer = new StreamingMarkdown();
    const paragraphs = Array.from({ length: PAGE_SIZE + 10 }, (_, index) => `Paragraph ${index}.`).join("\n\n");
    const first = renderer.update(paragraphs);
    const second = renderer.update(`${paragraphs} More text.`);
    expect(first.pages.length).toBe(2);
    expect(second.pages[0]).toBe(first.pages[0]);
    expect(second.tail).toEqual(["<p>Paragraph 73. More text.</p>\n"]);
    expect(streamedHtml(second)).toBe(renderMarkdown(`${paragraphs} More text.`));
  });

  it("starts over when the text is replaced instead of extended", () => {
    const renderer = new StreamingMarkdown();
    renderer.update("First paragraph.\n\nSecond.");
    const replaced = renderer.update("Something else entirely.\n\nAnd more.");
    expect(streamedHtml(replaced)).toBe(renderMarkdown("Something else entirely.\n\nAnd more."));
  });

  it("treats CRLF text like LF text, however the chunks split it", () => {
    const crlf = RICH_DOCUMENT.replaceAll("\n", "\r\n");
    for (const chunk of [1, 2, 7, 64]) {
      expect(streamInChunks(crlf, chunk), `chunk ${chunk}`).toBe(renderMarkdown(RICH_DOCUMENT));
    }
  }, 60_000);

  it("equals the one-shot render for random chunk boundaries", () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const expected = renderMarkdown(RICH_DOCUMENT);
    for (let trial = 0; trial < 20; trial += 1) {
      const renderer = new StreamingMarkdown();
      let end = 0;
      let last = renderer.update("");
      while (end < RICH_DOCUMENT.length) {
        end = Math.min(RICH_DOCUMENT.length, end + 1 + Math.floor(random() * 40));
        last = renderer.update(RICH_DOCUMENT.slice(0, end));
      }
      expect(streamedHtml(last), `trial ${trial}`).toBe(expected);
    }
  }, 60_000);

  it("renders a text many windows long in one update exactly like the one-shot render", () => {
    // Sections of every block kind, a fence with blank lines longer than a window, CRLF in places.
    const longFence = ["```python", ...Array.from({ length: 400 }, (_, i) => (i % 7 === 0 ? "" : `x_${i} = ${i}`)), "```"];
    const parts: string[] = [];
    for (let index = 0; index < 60; index += 1) {
      parts.push(`## Section ${index}`, "", `Text **${index}** with \`code\` and [a link](https://example.com/${index}).`, "");
      parts.push("- one", "  - nested", "", "- loose item", "", "| a | b |", "|---|---|", `| ${index} | x |`, "");
      if (index === 30) parts.push(...longFence, "");
      parts.push("Setext heading", "---", "");
    }
    const text = parts.join("\n");
    expect(text.length).toBeGreaterThan(LEX_WINDOW * 4);
    expect(longFence.join("\n").length).toBeGreaterThan(LEX_WINDOW);
    const crlf = text.slice(0, text.length / 2) + text.slice(text.length / 2).replaceAll("\n", "\r\n");
    for (const source of [text, crlf]) {
      const renderer = new StreamingMarkdown();
      const whole = renderer.update(source);
      expect(whole.complete).toBe(true);
      expect(streamedHtml(whole)).toBe(renderMarkdown(source));
    }
  }, 60_000);

  it("streams blocks longer than a window, and the text after them, like the one-shot render", () => {
    const words = Array.from({ length: 900 }, (_, index) => `w${index}`);
    const paragraph = words.join(" ");
    const fence = ["```ts", ...words.map((word) => `const ${word} = 1;`), "```"].join("\n");
    const text = `${paragraph}\n\nShort one.\n\n${fence}\n\n## After\n\n${paragraph} **end**\n`;
    expect(paragraph.length).toBeGreaterThan(LEX_WINDOW * 2);
    for (const chunk of [7, 300, 5000]) {
      expect(streamInChunks(text, chunk), `chunk ${chunk}`).toBe(renderMarkdown(text));
    }
  }, 60_000);

  it("stops at its deadline with finished blocks only, and later updates finish the same render", () => {
    const text = Array.from({ length: 200 }, (_, index) => `Paragraph ${index} **bold**.`).join("\n\n");
    const renderer = new StreamingMarkdown();
    const first = renderer.update(text, 0);
    expect(first.complete).toBe(false);
    expect(first.tail).toEqual([]);
    const shownFirst = first.pages.flat().length;
    expect(shownFirst).toBeGreaterThan(0);
    expect(shownFirst).toBeLessThan(200);
    let last = first;
    let updates = 1;
    while (!last.complete) {
      last = renderer.update(text, 0);
      updates += 1;
      expect(updates).toBeLessThan(200);
    }
    expect(updates).toBeGreaterThan(1);
    expect(streamedHtml(last)).toBe(renderMarkdown(text));
  });

  it("tries the setext heading rule only where an underline follows before a blank line", () => {
    expect(mayBeSetextHeading("Title\n===\n")).toBe(true);
    expect(mayBeSetextHeading("Title\nmore title\n   ---  \nafter")).toBe(true);
    expect(mayBeSetextHeading("Title\r\n---\r\n")).toBe(true);
    expect(mayBeSetextHeading("Title\n\n---\n")).toBe(false);
    expect(mayBeSetextHeading("Title\n    ---\n")).toBe(false);
    expect(mayBeSetextHeading("Just a paragraph\nover two lines\n")).toBe(false);
    expect(mayBeSetextHeading("one line")).toBe(false);
    expect(renderMarkdown("Title\n===\n\nText")).toBe("<h1>Title</h1>\n<p>Text</p>\n");
    expect(renderMarkdown("Title\n\n---\n")).toBe("<p>Title</p>\n<hr>\n");
  });
});
