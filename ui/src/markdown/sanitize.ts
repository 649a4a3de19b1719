// The one gate between rendered Markdown and the DOM. The renderer already emits no raw HTML, no href and
// no src; DOMPurify enforces it again with an allow-list, so nothing the model writes can run script, load
// a resource, navigate the webview or carry an inline style (which the app's CSP would refuse anyway).
import DOMPurify from "dompurify";

const ALLOWED_TAGS = [
  "a", "blockquote", "br", "button", "code", "del", "div", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
  "input", "li", "ol", "p", "pre", "span", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul",
];

const ALLOWED_ATTR = ["class", "title", "type", "checked", "disabled", "start", "align"];

export function sanitizeHtml(html: string): string {
  return DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    // No attribute may hold a URL at all (the renderer never emits href or src).
    ALLOWED_URI_REGEXP: /^$/,
  });
}
