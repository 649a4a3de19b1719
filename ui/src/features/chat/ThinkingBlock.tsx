// The model's reasoning: open and live while it streams, folded away once the answer moves on.
import { useState } from "react";

import { useStrings } from "../../i18n/I18n";
import type { ThinkingBlockView } from "../../state/assistant-blocks";
import { ChevronIcon } from "./icons";

export function ThinkingBlock({ block }: { block: ThinkingBlockView }) {
  const strings = useStrings();
  // null: follow the stream (open while thinking, closed when done); a click pins the user's choice.
  const [pinned, setPinned] = useState<boolean | null>(null);
  const open = pinned ?? !block.done;
  return (
    <div className={`thinking${block.done ? "" : " live"}`} data-testid="thinking-block">
      <button type="button" className="thinking-head" aria-expanded={open} onClick={() => setPinned(!open)}>
        <span className={`tool-chevron${open ? " open" : ""}`}>
          <ChevronIcon />
        </span>
        {block.done ? strings.thought : strings.thinking}
      </button>
      {open ? (
        <div className="thinking-body">{block.redacted && block.text === "" ? strings.redactedThinking : block.text}</div>
      ) : null}
    </div>
  );
}
