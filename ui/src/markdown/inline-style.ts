// Inline styles of typeset math and drawn diagrams. KaTeX positions every glyph with `style` attributes and
// Mermaid sizes its SVG with one, but the app's CSP (style-src 'self') refuses, and reports, style attributes
// parsed from markup. So their text travels in STYLE_ATTRIBUTE instead (no markup ever carries a `style`
// attribute into the DOM), the sanitiser keeps only declarations from the list below, with plain values
// (numbers with units, keywords, colours; never url(), var(), escapes or anything that could fetch or hide a
// payload), and the window applies them through the CSSOM, which the CSP leaves to the app's own script.

/** The attribute that carries an element's inline style from the renderer to the window. */
export const STYLE_ATTRIBUTE = "data-pi-style";

const PROPERTIES = new Set([
  // KaTeX
  "height", "width", "min-width", "max-width", "vertical-align", "top", "bottom", "left", "position",
  "margin", "margin-top", "margin-right", "margin-left", "padding-left",
  "border-width", "border-style", "border-color", "border-top-width", "border-right-width",
  "border-bottom-width", "border-right-style", "color", "background-color",
  // Mermaid
  "fill", "stroke", "stroke-width", "stroke-dasharray", "opacity", "fill-opacity", "stroke-opacity",
  "font-size", "font-weight", "font-style", "text-anchor", "text-align", "display",
]);

const VALUE_TOKEN =
  /^(?:[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:em|ex|px|pt|%)?|[a-z-]+|#[0-9a-f]{3,8}|rgba?\([\d.,\s%]+\)|calc\([\d.\s%+*/a-z-]+\))$/i;

/** The declarations of `style` that may stay, as a style text; empty when none. */
export function safeInlineStyle(style: string): string {
  const kept: string[] = [];
  for (const declaration of style.split(";")) {
    const colon = declaration.indexOf(":");
    if (colon < 0) continue;
    const property = declaration.slice(0, colon).trim().toLowerCase();
    const value = declaration.slice(colon + 1).trim();
    if (!PROPERTIES.has(property) || value === "" || value.length > 64) continue;
    const tokens = value.replaceAll(/,\s*/g, ",").split(/\s+/);
    if (tokens.every((token) => token.split(",").every((part) => VALUE_TOKEN.test(part)))) {
      kept.push(`${property}:${value}`);
    }
  }
  return kept.join(";");
}

/** `html` (KaTeX's or Mermaid's own markup, whose text is escaped) with its style attributes renamed. */
export function withStylesAside(html: string): string {
  return html.replaceAll(' style="', ` ${STYLE_ATTRIBUTE}="`);
}

/** Applies the (sanitised) styles under `root` through the CSSOM. */
export function applyInlineStyles(root: ParentNode): void {
  for (const element of root.querySelectorAll<HTMLElement | SVGElement>(`[${STYLE_ATTRIBUTE}]`)) {
    element.style.cssText = safeInlineStyle(element.getAttribute(STYLE_ATTRIBUTE) ?? "");
    element.removeAttribute(STYLE_ATTRIBUTE);
  }
}
