// One card per tool call: its label, arguments, progress, status and result (a file list for the listing tools).
import { useState } from "react";

import { useStrings } from "../../i18n/I18n";
import type { Language } from "../../i18n/strings";
import type { ToolCallBlockView } from "../../state/assistant-blocks";
import type { ToolRun } from "../../state/chat";
import { fileListDetails, resultText, type ToolCardState } from "../../state/selectors";
import { useApprovalAnswers } from "./approval-context";
import { ApprovalPrompt } from "./ApprovalPrompt";
import { FileList } from "./FileList";
import { ChevronIcon } from "./icons";

interface ToolCardProps {
  call: ToolCallBlockView;
  run: ToolRun | undefined;
  state: ToolCardState;
  language: Language;
}

const MAX_RESULT_CHARS = 4000;
const COMPACT_JSON_CHARS = 100;

export function ToolCard({ call, run, state, language }: ToolCardProps) {
  const strings = useStrings();
  const [expanded, setExpanded] = useState(true);
  const name = call.name !== "" ? call.name : (run?.toolName ?? "");
  const label = strings.toolLabels[name] ?? name;
  const args = run?.args ?? call.arguments;
  const argsText = call.done || call.argsText === "" ? formatArguments(args) : call.argsText;
  const latestUpdate = run?.updates[run.updates.length - 1];
  const files = run?.result === undefined ? null : fileListDetails(run.result);
  const text = run?.result === undefined ? "" : resultText(run.result);
  const { approvals, answer } = useApprovalAnswers();
  const approval = approvals[call.id];

  return (
    <section className={`tool-card ${state}`} data-testid="tool-card" data-tool={name} data-state={state}>
      <button
        type="button"
        className="tool-card-head"
        aria-expanded={expanded}
        onClick={() => setExpanded((value) => !value)}
      >
        <span className={`tool-chevron${expanded ? " open" : ""}`}>
          <ChevronIcon />
        </span>
        <span className="tool-label">{label}</span>
        {label !== name ? <code className="tool-name">{name}</code> : null}
        <span className={`tool-state ${state}`}>
          {state === "running" ? <span className="spinner" aria-hidden="true" /> : null}
          {state === "stopped" && run?.status === "stopped" ? strings.toolCancelled : strings.toolState[state]}
        </span>
      </button>
      {state === "awaiting_approval" && approval !== undefined ? (
        <ApprovalPrompt view={approval} onAnswer={(decision) => answer(approval, decision)} />
      ) : null}
      {expanded ? (
        <div className="tool-card-body">
          {argsText !== "" && argsText !== "{}" && state !== "awaiting_approval" ? (
            <div className="tool-section">
              <div className="tool-section-title">{strings.toolArguments}</div>
              <pre className="tool-args">{argsText}</pre>
            </div>
          ) : null}
          {state === "running" && latestUpdate !== undefined ? (
            <div className="tool-section" data-testid="tool-progress">
              <div className="tool-section-title">{strings.toolProgress}</div>
              <div className="tool-progress">{progressText(latestUpdate)}</div>
            </div>
          ) : null}
          {files !== null ? (
            <FileList list={files} language={language} />
          ) : text !== "" ? (
            <div className="tool-section">
              <div className="tool-section-title">{strings.toolResult}</div>
              <pre className={`tool-result${state === "error" ? " error" : ""}`}>{truncate(text)}</pre>
            </div>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

/** Short JSON on one line, longer JSON indented. */
function formatArguments(args: unknown): string {
  if (args === undefined) return "";
  try {
    const compact = JSON.stringify(args) ?? "";
    return compact.length <= COMPACT_JSON_CHARS ? compact : (JSON.stringify(args, null, 2) ?? "");
  } catch {
    return "";
  }
}

/** A progress update's text, or its details when it has no text. */
function progressText(update: unknown): string {
  const text = resultText(update);
  if (text !== "") return text;
  if (typeof update === "object" && update !== null && "details" in update) {
    return formatArguments((update as { details: unknown }).details);
  }
  return formatArguments(update);
}

function truncate(text: string): string {
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}…` : text;
}
