// Renders a (possibly growing) Markdown text. The Markdown is lexed and rendered away from the window's work
// (./markdown-renderer: in a worker); this view sanitises what comes back and puts it into the DOM. While the
// text arrives at reading speed every new part is shown at once. When much more arrives than can be shown in a
// frame (a fast model, a replay) the parts are put into the DOM a few times a second: a frame with no DOM change
// costs the browser next to nothing, so the catch-up is not paid per frame, and the window keeps answering.
// A view that is behind its text says so in the nearest render backlog until all of it is on screen.
import { useContext, useLayoutEffect, useRef, type MouseEvent } from "react";

import { useStrings } from "../i18n/I18n";
import type { Strings } from "../i18n/strings";
import { fetchImage } from "../ipc/images";
import { openLink } from "../ipc/opener";
import { MarkdownDom } from "./markdown-dom";
import { markdownRenderer, type MarkdownRenderer } from "./markdown-renderer";
import { RenderBacklogContext } from "./render-backlog";
import { commandErrorText, oneLine } from "../i18n/error-text";
import { toCommandError } from "../ipc/backend";

/** While catching up, how often the blocks rendered so far go into the DOM (ms). */
const CATCH_UP_COMMIT_MS = 100;

interface MarkdownViewProps {
  text: string;
  /** The text only ever grows (a block still streaming): each new text is the previous one plus more. */
  growing?: boolean;
}

export function MarkdownView({ text, growing = false }: MarkdownViewProps) {
  const backlog = useContext(RenderBacklogContext);
  const strings = useStrings();
  const root = useRef<HTMLDivElement>(null);
  const renderer = useRef<MarkdownRenderer | null>(null);
  const latestText = useRef(text);
  // The view's identity in the backlog.
  const self = useRef({});

  useLayoutEffect(() => {
    const element = root.current;
    if (element === null) return undefined;
    const dom = new MarkdownDom(element);
    let lastCommit = performance.now();
    const created = markdownRenderer((part) => {
      dom.stage(part);
      const now = performance.now();
      if (part.complete || now - lastCommit >= CATCH_UP_COMMIT_MS) {
        dom.commit();
        lastCommit = now;
      }
      if (part.complete && part.length === latestText.current.length) backlog?.set(self.current, false);
    });
    renderer.current = created;
    backlog?.set(self.current, true);
    created.render(latestText.current);
    return () => {
      created.close();
      dom.dispose();
      renderer.current = null;
      element.replaceChildren();
      backlog?.set(self.current, false);
    };
  }, [backlog]);

  // In the commit that brought the text, not after the frame is drawn: the worker starts on it at once.
  useLayoutEffect(() => {
    if (text === latestText.current) return;
    latestText.current = text;
    backlog?.set(self.current, true);
    renderer.current?.render(text, growing);
  }, [text, growing, backlog]);

  return (
    <div
      className="markdown"
      ref={root}
      onClick={(event) => onMarkdownClick(event, strings)}
      onAuxClick={preventLinkNavigation}
    />
  );
}

/** A middle click on a link would open it in the webview: it does nothing. */
function preventLinkNavigation(event: MouseEvent<HTMLDivElement>): void {
  if (event.target instanceof Element && event.target.closest("a") !== null) event.preventDefault();
}

/**
 * Links never navigate the webview: a web or mail link opens in the system browser or mail program (a failure
 * is shown beside it), any other does nothing. "Show image" asks the host for that image. Copy buttons copy
 * their code block.
 */
function onMarkdownClick(event: MouseEvent<HTMLDivElement>, strings: Strings): void {
  const target = event.target;
  if (!(target instanceof Element)) return;
  const link = target.closest("a");
  if (link !== null) {
    event.preventDefault();
    const href = link.getAttribute("href");
    if (href !== null) void openLinkOf(link, href, strings);
    return;
  }
  const show = target.closest("button.md-image-show");
  if (show instanceof HTMLButtonElement) {
    void showImage(show, strings);
    return;
  }
  const button = target.closest("button.code-copy");
  if (button === null) return;
  const code = button.closest(".code-block")?.querySelector("code")?.textContent ?? "";
  void navigator.clipboard.writeText(code).then(
    () => {
      button.classList.add("copied");
      window.setTimeout(() => button.classList.remove("copied"), 1500);
    },
    () => {
      button.classList.add("copy-failed");
      window.setTimeout(() => button.classList.remove("copy-failed"), 1500);
    },
  );
}

async function openLinkOf(link: Element, href: string, strings: Strings): Promise<void> {
  const failure = await openLink(href);
  const next = link.nextElementSibling;
  if (next?.classList.contains("md-link-error") === true) next.remove();
  if (failure === null || failure.kind === "refused") return;
  const note = document.createElement("span");
  note.className = "md-link-error";
  note.setAttribute("role", "alert");
  note.textContent = strings.linkOpenFailed(failure.message);
  link.after(note);
}

/** Replaces the button with the image the host fetched, or says beside it why there is none. */
async function showImage(button: HTMLButtonElement, strings: Strings): Promise<void> {
  const holder = button.closest(".md-image");
  const url = holder?.getAttribute("title") ?? "";
  if (holder === null || url === "" || button.disabled) return;
  button.disabled = true;
  holder.querySelector(".md-image-error")?.remove();
  try {
    const image = document.createElement("img");
    image.className = "md-image-shown";
    image.alt = holder.querySelector(".md-image-alt")?.textContent ?? "";
    image.src = await fetchImage(url);
    button.replaceWith(image);
  } catch (error) {
    button.disabled = false;
    const note = document.createElement("span");
    note.className = "md-image-error";
    note.setAttribute("role", "alert");
    note.textContent = strings.imageShowFailed(oneLine(commandErrorText(strings, toCommandError(error))));
    holder.append(note);
  }
}
