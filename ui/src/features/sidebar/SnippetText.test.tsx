import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";

import { SnippetText } from "./SnippetText";

describe("search snippets", () => {
  it("marks the matched parts and nothing else", () => {
    const html = renderToStaticMarkup(
      <SnippetText
        parts={[
          { text: "…which ", highlighted: false },
          { text: "PDF", highlighted: true },
          { text: " files are in 下载", highlighted: false },
        ]}
      />,
    );
    expect(html).toBe(
      '<span class="snippet" data-testid="search-snippet"><span>…which </span><mark class="snippet-match">PDF</mark>' +
        "<span> files are in 下载</span></span>",
    );
  });

  it("shows markup in a message as text instead of injecting it", () => {
    const html = renderToStaticMarkup(
      <SnippetText
        parts={[
          { text: '<img src=x onerror="alert(1)">', highlighted: false },
          { text: "<script>alert(2)</script>", highlighted: true },
        ]}
      />,
    );
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<script");
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(html).toContain('<mark class="snippet-match">&lt;script&gt;alert(2)&lt;/script&gt;</mark>');
  });
});
