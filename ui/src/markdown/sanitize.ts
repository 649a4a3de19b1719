// The one gate between rendered Markdown and the DOM. The renderer already emits no raw HTML, no src and no
// href but http, https and mailto ones; DOMPurify enforces it again with an allow-list, so nothing the model
// writes can run script, load a resource or navigate the webview (the window opens web links in the system
// browser). No style attribute passes; the only inline styles kept are KaTeX's plain layout declarations,
// carried aside (./inline-style), and the only
// SVG is KaTeX's: its radicals and stretchy arrows (svg, path, line with their geometry).
import DOMPurify from "dompurify";

import { STYLE_ATTRIBUTE, safeInlineStyle } from "./inline-style";

const ALLOWED_TAGS = [
  "a", "blockquote", "br", "button", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
  "input", "li", "ol", "p", "pre", "span", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul",
  "svg", "path", "line",
];

const ALLOWED_ATTR = [
  "class", "title", "type", "checked", "disabled", "start", "align", "href", STYLE_ATTRIBUTE, "aria-hidden",
  // KaTeX's SVG
  "xmlns", "width", "height", "viewbox", "viewBox", "preserveaspectratio", "preserveAspectRatio", "d",
  "x1", "x2", "y1", "y2", "stroke-width",
];

/** Attributes whose values are checked here, not against the URL pattern below (which only hrefs pass). */
const NON_URL_ATTR = [
  STYLE_ATTRIBUTE, "aria-hidden", "xmlns", "width", "height", "viewbox", "preserveaspectratio", "d",
  "x1", "x2", "y1", "y2", "stroke-width",
];

const CONFIG = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ADD_URI_SAFE_ATTR: NON_URL_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  // The only attribute holding a URL is a link's href, and only a web or mail one.
  ALLOWED_URI_REGEXP: /^(?:https?:\/\/|mailto:)/i,
};

// One hook for every DOMPurify call of the window: Markdown blocks here and Mermaid's SVG in ./diagrams. (The
// render worker imports this module too, where DOMPurify has no DOM and sanitises nothing.)
if (DOMPurify.isSupported) DOMPurify.addHook("uponSanitizeAttribute", (node, data) => {
  if (data.attrName === "href" && node.nodeName.toLowerCase() !== "a") {
    data.keepAttr = false;
  } else if (data.attrName === STYLE_ATTRIBUTE) {
    const style = safeInlineStyle(data.attrValue);
    if (style === "") data.keepAttr = false;
    else data.attrValue = style;
  }
});

export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, CONFIG);
}

/**
 * Sanitises several blocks' HTML in one pass (each pass parses a document of its own, which costs more than
 * a small block's content) and returns one `div.md-block` element per block, in order, ready to be inserted.
 * Each block goes in a wrapper of its own; should the sanitised result not split back into as many wrappers,
 * every block is sanitised alone.
 */
export function sanitizeBlockElements(blocks: readonly string[]): Element[] {
  if (blocks.length === 0) return [];
  const wrapped = blocks.map((html) => `<div class="md-block">${html}</div>`).join("");
  const fragment = DOMPurify.sanitize(wrapped, { ...CONFIG, RETURN_DOM_FRAGMENT: true });
  if (fragment.childNodes.length === blocks.length && fragment.children.length === blocks.length) {
    return Array.from(fragment.children);
  }
  return blocks.map((html) => {
    const element = document.createElement("div");
    element.className = "md-block";
    element.innerHTML = sanitizeHtml(html);
    return element;
  });
}

/** Each block's sanitised HTML, in order (see {@link sanitizeBlockElements}). */
export function sanitizeBlocks(blocks: readonly string[]): string[] {
  return sanitizeBlockElements(blocks).map((element) => element.innerHTML);
}
