// @vitest-environment jsdom
import { Lexer } from "marked";
import { describe, expect, it } from "vitest";

import { blockRuleGuards } from "./block-rule-guards";
import { renderMarkdown } from "./render";

const PIECES = [
  " ", "   ", "    ", "\t", "\n", "\n\n", "a", "word", "<", "</div>", "<div>", "<!-- x -->", "<?x?>", "<![CDATA[",
  "<script>", ">", "> quote", "-", "---", "_", "___", "*", "* * *", "|", "| a | b |", "|---|---|", ":", ":-:", "#",
  "```", "1.", "x",
];

const RULES = ["html", "hr", "blockquote", "table"] as const;

describe("the block rule guards", () => {
  it("pass every text marked's own rule matches", () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return Math.floor((seed / 2_147_483_648) * n);
    };
    const guarded: Record<string, number> = {};
    const matched: Record<string, number> = {};
    for (let trial = 0; trial < 40_000; trial += 1) {
      let text = "";
      for (let piece = 1 + random(10); piece > 0; piece -= 1) text += PIECES[random(PIECES.length)];
      for (const rule of RULES) {
        const matches = Lexer.rules.block.gfm[rule].exec(text) !== null;
        const runs = blockRuleGuards[rule](text) === false;
        if (matches) expect(runs, `${rule} ${JSON.stringify(text)}`).toBe(true);
        if (matches) matched[rule] = (matched[rule] ?? 0) + 1;
        if (!runs) guarded[rule] = (guarded[rule] ?? 0) + 1;
      }
    }
    // Each rule matched some of these texts and each guard turned most of them away: the check saw both cases.
    for (const rule of RULES) {
      expect(matched[rule] ?? 0, rule).toBeGreaterThan(100);
      expect(guarded[rule] ?? 0, rule).toBeGreaterThan(10_000);
    }
  });

  it("leave each kind rendered where it is", () => {
    const html = renderMarkdown("<div>\nx\n</div>\n\n---\n\n> quote\n\n| a | b |\n|---|---|\n| 1 | 2 |\n");
    expect(html).toContain("&lt;div&gt;");
    expect(html).toContain("<hr>");
    expect(html).toContain("<blockquote>");
    expect(html).toContain("<td>1</td>");
  });
});
