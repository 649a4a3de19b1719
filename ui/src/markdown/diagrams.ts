// Mermaid diagrams of closed ```mermaid fences, drawn in the window (Mermaid measures text in the DOM, so it
// cannot run in the render worker). Mermaid is loaded on the first diagram only, as a chunk of its own.
//
// Safety: `securityLevel: "strict"` (no click callbacks, labels as escaped text), its output sanitised again
// (SVG only, no foreignObject, no link, no script, no event handler, only the inline styles ./inline-style
// keeps), and diagrams cannot change the settings that shape styles or labels (`secure`). The diagram's own
// stylesheet, which the CSP refuses as a <style> element (Mermaid still inserts one while it measures the text,
// and the webview reports that refusal), is applied as a constructed stylesheet holding only its rules whose
// every selector starts with the diagram's id, so no text of a diagram can style anything else. The font is
// fixed (DIAGRAM_FONT, also in styles.css) so text measured while drawing fits the boxes shown. A diagram
// Mermaid cannot draw keeps showing its code, with Mermaid's message under it.
import DOMPurify from "dompurify";

import { STRINGS, type Strings } from "../i18n/strings";
import { STYLE_ATTRIBUTE, applyInlineStyles } from "./inline-style";

type Mermaid = (typeof import("mermaid"))["default"];

/** The most source characters of one diagram Mermaid is asked to draw. */
const MAX_DIAGRAM_CHARS = 20_000;

/** The diagrams' font; styles.css gives `svg[id^="pi-diagram-"]` the same, for the measuring pass. */
const DIAGRAM_FONT = "system-ui, sans-serif";

type Drawn = { kind: "svg"; id: string; svg: string; css: string } | { kind: "error"; message: string };

let mermaidLoad: Promise<Mermaid> | null = null;
const drawings = new Map<string, Promise<Drawn>>();
let nextId = 1;
/** Rendering one diagram at a time: Mermaid keeps global state while it draws. */
let queue: Promise<unknown> = Promise.resolve();

function loadMermaid(): Promise<Mermaid> {
  mermaidLoad ??= import("mermaid").then(({ default: mermaid }) => {
    mermaid.initialize({
      startOnLoad: false,
      securityLevel: "strict",
      htmlLabels: false,
      flowchart: { htmlLabels: false },
      suppressErrorRendering: true,
      maxTextSize: MAX_DIAGRAM_CHARS,
      theme: "neutral",
      fontFamily: DIAGRAM_FONT,
      themeVariables: { fontFamily: DIAGRAM_FONT, fontSize: "16px" },
      secure: [
        "secure", "securityLevel", "startOnLoad", "maxTextSize", "suppressErrorRendering", "maxEdges",
        "htmlLabels", "flowchart", "themeCSS", "themeVariables", "fontFamily", "altFontFamily", "darkMode",
      ],
    });
    return mermaid;
  });
  return mermaidLoad;
}

/** Draws `source` once; the same source later gets the same drawing. */
function draw(source: string): Promise<Drawn> {
  const known = drawings.get(source);
  if (known !== undefined) return known;
  const id = `pi-diagram-${nextId}`;
  nextId += 1;
  const drawing = queue.then(async (): Promise<Drawn> => {
    try {
      const mermaid = await loadMermaid();
      const { svg } = await mermaid.render(id, source);
      const clean = sanitizeDiagram(svg);
      if (!clean.svg.startsWith("<svg")) return { kind: "error", message: strings().diagramEmpty };
      return { kind: "svg", id, ...clean };
    } catch (error) {
      document.getElementById(id)?.remove();
      document.getElementById(`d${id}`)?.remove();
      return { kind: "error", message: error instanceof Error ? error.message : String(error) };
    }
  });
  queue = drawing;
  drawings.set(source, drawing);
  return drawing;
}

/** The window's strings, in the language the app set on the document. */
function strings(): Strings {
  return STRINGS[document.documentElement.lang.startsWith("zh") ? "zh" : "en"];
}

const SVG_CONFIG = {
  USE_PROFILES: { svg: true, svgFilters: true },
  ADD_ATTR: [STYLE_ATTRIBUTE],
  FORBID_TAGS: ["foreignObject", "a", "script", "image", "use", "style", "animate", "set", "animateMotion", "animateTransform"],
  FORBID_ATTR: ["href", "xlink:href", "style"],
};

/**
 * Mermaid's SVG with only what a picture needs: its stylesheet taken out, its style attributes set aside
 * (parsed in an inert document, so the CSP never sees them), then sanitised.
 */
export function sanitizeDiagram(svg: string): { svg: string; css: string } {
  const parsed = new DOMParser().parseFromString(svg, "image/svg+xml");
  let css = "";
  for (const style of parsed.querySelectorAll("style")) {
    css += style.textContent ?? "";
    style.remove();
  }
  for (const element of parsed.querySelectorAll("[style]")) {
    element.setAttribute(STYLE_ATTRIBUTE, element.getAttribute("style") ?? "");
    element.removeAttribute("style");
  }
  const root = parsed.documentElement;
  const markup = root.nodeName.toLowerCase() === "svg" ? new XMLSerializer().serializeToString(root) : "";
  return { svg: DOMPurify.sanitize(markup, SVG_CONFIG), css: withoutImports(css) };
}

/** A stylesheet's text without @import rules (a constructed stylesheet refuses them). */
function withoutImports(css: string): string {
  return css.replaceAll(/@import[^;]*;/gi, "");
}

/** Draws every Mermaid fence under `root` that waits for it. */
export function drawDiagrams(root: ParentNode): void {
  for (const block of root.querySelectorAll<HTMLElement>(".code-block.mermaid-pending")) {
    block.classList.remove("mermaid-pending");
    const source = block.querySelector("code")?.textContent ?? "";
    if (source.length > MAX_DIAGRAM_CHARS) {
      showError(block, strings().diagramTooLong(MAX_DIAGRAM_CHARS));
      continue;
    }
    block.classList.add("mermaid-drawing");
    void draw(source).then((drawn) => {
      // The block may still be staged, not in the DOM yet: it is changed all the same.
      block.classList.remove("mermaid-drawing");
      if (drawn.kind === "error") showError(block, drawn.message);
      else showDiagram(block, drawn);
    });
  }
}

const adopted = new Set<string>();

/** The rules of `css` scoped to the element `#id`: every selector of each rule starts with it. */
export function scopedRules(css: string, id: string): string[] {
  const parsed = new CSSStyleSheet();
  parsed.replaceSync(css);
  const prefix = `#${id}`;
  const rules: string[] = [];
  for (const rule of parsed.cssRules) {
    if (!(rule instanceof CSSStyleRule)) continue;
    const selectors = rule.selectorText.split(",").map((selector) => selector.trim());
    if (selectors.every((selector) => isWithin(selector, prefix))) rules.push(rule.cssText);
  }
  return rules;
}

/** `#pi-diagram-1 .node` is within `#pi-diagram-1`; `#pi-diagram-10` and `body` are not. */
function isWithin(selector: string, prefix: string): boolean {
  return selector === prefix || (selector.startsWith(prefix) && /^[\s.:>[]/.test(selector.slice(prefix.length)));
}

function showDiagram(block: HTMLElement, drawn: { id: string; svg: string; css: string }): void {
  const figure = document.createElement("div");
  figure.className = "mermaid-diagram";
  figure.append(DOMPurify.sanitize(drawn.svg, { ...SVG_CONFIG, RETURN_DOM_FRAGMENT: true }));
  applyInlineStyles(figure);
  if (drawn.css !== "" && !adopted.has(drawn.id)) {
    adopted.add(drawn.id);
    try {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(scopedRules(drawn.css, drawn.id).join("\n"));
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    } catch {
      // Without its stylesheet the diagram is drawn in the app's default colours.
    }
  }
  block.classList.add("mermaid-drawn");
  block.prepend(figure);
}

function showError(block: HTMLElement, message: string): void {
  block.classList.add("mermaid-failed");
  const note = document.createElement("div");
  note.className = "mermaid-error";
  note.textContent = message;
  block.append(note);
}
