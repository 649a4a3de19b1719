// The one gate between rendered Markdown and the DOM. The renderer already emits no raw HTML, no href and
// no src; DOMPurify enforces it again with an allow-list, so nothing the model writes can run script, load
// a resource, navigate the webview or carry an inline style (which the app's CSP would refuse anyway).
import DOMPurify from "dompurify";

const ALLOWED_TAGS = [
  "a", "blockquote", "br", "button", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
  "input", "li", "ol", "p", "pre", "span", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul",
];

const ALLOWED_ATTR = ["class", "title", "type", "checked", "disabled", "start", "align"];

const CONFIG = {
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  // No attribute may hold a URL at all (the renderer never emits href or src).
  ALLOWED_URI_REGEXP: /^$/,
};

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
