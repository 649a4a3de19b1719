// A search snippet: plain parts as text, matched parts in <mark>. The parts come from the backend as data, so
// nothing in a message (HTML, Markdown) is ever interpreted here.
import type { SnippetPart } from "../../ipc/conversations";

export function SnippetText({ parts }: { parts: readonly SnippetPart[] }) {
  return (
    <span className="snippet" data-testid="search-snippet">
      {parts.map((part, idx) =>
        part.highlighted ? (
          <mark key={idx} className="snippet-match">
            {part.text}
          </mark>
        ) : (
          <span key={idx}>{part.text}</span>
        ),
      )}
    </span>
  );
}
