// @vitest-environment jsdom
import { Lexer } from "marked";
import { describe, expect, it } from "vitest";

import { INLINE_TEXT, MARKED_INLINE_TEXT } from "./inline-text-rule";
import { renderMarkdown } from "./render";

const PIECES = [
  " ", "  \n", "\n", "a", "w", "W", ".", "~", "~~", "`", "``", "*", "_", "(", ")", "@", "x@y.z", "1", "-", "\\",
  "<", "!", "[", "]", ":", "www.", "www.a.b", "http", "https://", "HTTP", "ftp://", "mailto:", "xmpp:", "é", "字",
  "\u00a0",
];

describe("the inline text rule without a lookbehind", () => {
  it("is a rewrite of the rule this marked has", () => {
    expect(Lexer.rules.inline.gfm.text.source).toBe(MARKED_INLINE_TEXT);
    expect(INLINE_TEXT.source).not.toContain("(?<");
  });

  it("ends every text run where marked's rule ends it", () => {
    const marked = new RegExp(MARKED_INLINE_TEXT);
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor((seed / 2_147_483_648) * n);
    };
    for (let trial = 0; trial < 40_000; trial += 1) {
      let text = "";
      for (let piece = 1 + random(8); piece > 0; piece -= 1) text += PIECES[random(PIECES.length)];
      expect(INLINE_TEXT.exec(text)?.[0], JSON.stringify(text)).toBe(marked.exec(text)?.[0]);
    }
  });

  it("leaves autolinks where marked puts them", () => {
    const html = renderMarkdown("see www.example.com and (www.a.org) but not awww.b.org, ~www.c.io~ *www.d.io*\n");
    expect(html).toContain('href="http://www.example.com"');
    expect(html).toContain('href="http://www.a.org"');
    expect(html).not.toContain("http://awww");
    expect(html).not.toContain('href="http://www.b.org"');
    expect(html).toContain('href="http://www.c.io"');
    expect(html).toContain('href="http://www.d.io"');
  });
});
