// Renders a (possibly growing) Markdown text: finished blocks once, the tail at most once per animation frame.
import { memo, useEffect, useRef, useState, type MouseEvent } from "react";

import { StreamingMarkdown, type StreamedMarkdown } from "./render";

interface MarkdownViewProps {
  text: string;
}

export function MarkdownView({ text }: MarkdownViewProps) {
  // One renderer per mounted view (never shared), created on first render.
  const renderer = useRef<StreamingMarkdown | null>(null);
  const renderedText = useRef<string | null>(null);
  const latestText = useRef(text);
  const frame = useRef<number | null>(null);
  const [rendered, setRendered] = useState<StreamedMarkdown>(() => {
    const created = new StreamingMarkdown();
    renderer.current = created;
    renderedText.current = text;
    return created.update(text);
  });

  useEffect(() => {
    latestText.current = text;
    if (text === renderedText.current || frame.current !== null) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = null;
      const current = renderer.current ?? new StreamingMarkdown();
      renderer.current = current;
      renderedText.current = latestText.current;
      setRendered(current.update(latestText.current));
    });
  }, [text]);

  useEffect(
    () => () => {
      if (frame.current !== null) cancelAnimationFrame(frame.current);
      frame.current = null;
    },
    [],
  );

  return (
    <div className="markdown" onClick={onMarkdownClick}>
      {rendered.pages.map((page, index) => (
        <MarkdownPage key={index} blocks={page} />
      ))}
      {rendered.tail.map((html, index) => (
        <div key={`tail-${index}`} className="md-block" dangerouslySetInnerHTML={{ __html: html }} />
      ))}
    </div>
  );
}

/**
 * A page of finished blocks; a full page keeps its array identity, so React skips it entirely, and its own
 * element lets the browser skip its layout and paint while it is off screen (CSS content-visibility).
 */
const MarkdownPage = memo(function MarkdownPage({ blocks }: { blocks: readonly string[] }) {
  return (
    <div className="md-page">
      {blocks.map((html, index) => (
        <div key={index} className="md-block" dangerouslySetInnerHTML={{ __html: html }} />
      ))}
    </div>
  );
});

/** Copy buttons copy their code block; links never navigate the webview. */
function onMarkdownClick(event: MouseEvent<HTMLDivElement>): void {
  const target = event.target;
  if (!(target instanceof Element)) return;
  if (target.closest("a") !== null) {
    event.preventDefault();
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
