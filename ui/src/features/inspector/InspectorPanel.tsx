// The loop inspector beside the conversation: one entry per run with the exit condition that ended it and the
// times of agent_end and idle, one row per turn (what was injected and sent, first token, duration, tokens,
// stop reason, cost, each tool call), the run's events, and Replay / Export for stored runs. It reads the host's
// derivation, fetched again at run and turn boundaries (never per streamed delta).
import { useEffect, useState } from "react";

import type { Language } from "../../i18n/strings";
import {
  exportRunLog,
  inspectConversation,
  runEvents,
  runReplay,
  type ConversationInspection,
  type EventRow,
  type InspectedRun,
  type ToolCallSummary,
  type TurnSummary,
} from "../../ipc/inspector";
import { inspectorStrings, type InspectorStrings } from "./inspector-strings";
import { sentMessages, type SentMessage } from "./sent-messages";
import "./inspector.css";

interface InspectorPanelProps {
  language: Language;
  conversationId: string | null;
  /** Changes whenever the runs may have changed (a run, turn or tool call began or ended). */
  refreshKey: string;
  /** Why the last Replay could not start, if it could not. */
  replayError: string | null;
  onReplay: (logId: number) => void;
  onClose: () => void;
}

export function InspectorPanel({
  language,
  conversationId,
  refreshKey,
  replayError,
  onReplay,
  onClose,
}: InspectorPanelProps) {
  const strings = inspectorStrings(language);
  const [inspection, setInspection] = useState<ConversationInspection | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    if (conversationId === null || conversationId === "") {
      setInspection({ runs: [], capBytes: 0 });
      return;
    }
    let current = true;
    inspectConversation(conversationId).then(
      (read) => {
        if (!current) return;
        setInspection(read);
        setError(null);
      },
      (reason: unknown) => {
        if (current) setError(messageOf(reason));
      },
    );
    return () => {
      current = false;
    };
  }, [conversationId, refreshKey]);

  const exportRun = (logId: number) => {
    if (conversationId === null) return;
    exportRunLog(conversationId, logId).then(
      (file) => setNotice(strings.exported(file.fileName)),
      (reason: unknown) => setNotice(messageOf(reason)),
    );
  };

  return (
    <aside className="inspector-panel" data-testid="inspector-panel" aria-label={strings.title}>
      <header className="inspector-header">
        <h2>{strings.title}</h2>
        <button type="button" className="icon-button" aria-label={strings.close} title={strings.close} onClick={onClose}>
          ×
        </button>
      </header>
      {error !== null ? <p className="inspector-error" role="alert">{strings.failed(error)}</p> : null}
      {replayError !== null ? <p className="inspector-error" role="alert">{replayError}</p> : null}
      {notice !== null ? <p className="inspector-notice" role="status">{notice}</p> : null}
      {inspection === null ? (
        <p className="inspector-empty">{strings.loading}</p>
      ) : inspection.runs.length === 0 ? (
        <p className="inspector-empty" data-testid="inspector-empty">
          {strings.noRuns}
        </p>
      ) : (
        <ol className="inspector-runs">
          {inspection.runs.map((run, index) => (
            <RunEntry
              key={run.logId ?? "live"}
              run={run}
              index={index + 1}
              strings={strings}
              conversationId={conversationId ?? ""}
              refreshKey={refreshKey}
              onReplay={onReplay}
              onExport={exportRun}
            />
          ))}
        </ol>
      )}
      {inspection !== null && inspection.capBytes > 0 ? (
        <p className="inspector-cap">{strings.logCap(Math.round(inspection.capBytes / (1024 * 1024)))}</p>
      ) : null}
    </aside>
  );
}

interface RunEntryProps {
  run: InspectedRun;
  index: number;
  strings: InspectorStrings;
  conversationId: string;
  refreshKey: string;
  onReplay: (logId: number) => void;
  onExport: (logId: number) => void;
}

function RunEntry({ run, index, strings, conversationId, refreshKey, onReplay, onExport }: RunEntryProps) {
  const { summary } = run;
  const exit = summary.exit ?? "running";
  const [events, setEvents] = useState<EventRow[] | null>(null);
  const [showEvents, setShowEvents] = useState(false);
  const logId = run.logId ?? null;

  useEffect(() => {
    if (!showEvents) return;
    let current = true;
    runEvents(conversationId, logId).then(
      (rows) => {
        if (current) setEvents(rows);
      },
      () => {
        if (current) setEvents([]);
      },
    );
    return () => {
      current = false;
    };
  }, [showEvents, conversationId, logId, refreshKey]);

  // What each turn sent, rebuilt from the stored log the first time one is opened.
  const loadSent = (turnIndex: number): Promise<SentMessage[] | null> =>
    logId === null
      ? Promise.resolve(null)
      : runReplay(conversationId, logId).then((replay) => sentMessages(replay, turnIndex));
  const settled =
    summary.idleMs !== undefined && summary.agentEndMs !== undefined ? summary.idleMs - summary.agentEndMs : null;
  return (
    <li className="inspector-run" data-testid="inspector-run" data-exit={exit}>
      <div className="inspector-run-head">
        <strong>{strings.run(index)}</strong>
        <span className={`inspector-exit exit-${exit}`}>{exit === "running" ? strings.running : strings.exits[exit]}</span>
        <span className="inspector-meta">{strings.turns(summary.turns.length)}</span>
        <time className="inspector-meta" dateTime={new Date(run.startedAt).toISOString()}>
          {new Date(run.startedAt).toLocaleTimeString()}
        </time>
      </div>
      <dl className="inspector-times">
        <dt>agent_start</dt>
        <dd>0 ms</dd>
        {summary.agentEndMs !== undefined ? (
          <>
            <dt>{strings.agentEnd}</dt>
            <dd>{formatMs(summary.agentEndMs)}</dd>
          </>
        ) : null}
        {summary.idleMs !== undefined ? (
          <>
            <dt>{strings.idle}</dt>
            <dd title={settled === null ? undefined : strings.settling(settled)}>{formatMs(summary.idleMs)}</dd>
          </>
        ) : null}
      </dl>
      <ol className="inspector-turns">
        {summary.turns.map((turn) => (
          <TurnRow
            key={turn.index}
            turn={turn}
            strings={strings}
            loadSent={logId === null ? null : () => loadSent(turn.index)}
          />
        ))}
      </ol>
      <div className="inspector-run-actions">
        <button type="button" className="ghost-button" data-testid="inspector-events-toggle" onClick={() => setShowEvents((open) => !open)}>
          {showEvents ? strings.hideEvents : strings.events}
        </button>
        {logId !== null ? (
          <>
            <button type="button" className="ghost-button" data-testid="replay-button" onClick={() => onReplay(logId)}>
              {strings.replay}
            </button>
            <button type="button" className="ghost-button" data-testid="export-run-button" onClick={() => onExport(logId)}>
              {strings.export}
            </button>
          </>
        ) : null}
      </div>
      {showEvents && events !== null ? (
        <ol className="inspector-events" data-testid="inspector-events">
          {events.map((row, position) => (
            <li key={position} className="inspector-event" data-kind={row.kind}>
              <span className="inspector-event-time">{row.atMs === undefined ? "" : `+${row.atMs} ms`}</span>
              <code>{row.kind}</code>
              {row.about !== "" ? <span className="inspector-event-about">{row.about}</span> : null}
              {row.count > 1 ? <span className="inspector-event-count">{strings.folded(row.count)}</span> : null}
            </li>
          ))}
        </ol>
      ) : null}
    </li>
  );
}

interface TurnRowProps {
  turn: TurnSummary;
  strings: InspectorStrings;
  /** Reads what the turn sent (a stored run); null for the run in progress. */
  loadSent: (() => Promise<SentMessage[] | null>) | null;
}

function TurnRow({ turn, strings, loadSent }: TurnRowProps) {
  const usage = turn.usage;
  const [sent, setSent] = useState<SentMessage[] | null | "loading">(null);
  const openSent = () => {
    if (loadSent === null || sent !== null) return;
    setSent("loading");
    loadSent().then(
      (messages) => setSent(messages ?? []),
      () => setSent([]),
    );
  };
  return (
    <li className="inspector-turn" data-testid="inspector-turn" data-index={turn.index} data-stop-reason={turn.stopReason ?? ""}>
      <div className="inspector-turn-head">
        <strong>{strings.turn(turn.index)}</strong>
        {turn.model !== undefined ? <span className="inspector-meta">{turn.model}</span> : null}
        {turn.stopReason !== undefined ? (
          <span className="inspector-meta">
            {strings.stopReason}: <code>{turn.stopReason}</code>
          </span>
        ) : null}
      </div>
      {turn.injected.length > 0 ? (
        <ul className="inspector-injected">
          {turn.injected.map((message, position) => (
            <li key={position} data-kind={message.isPrompt ? "prompt" : "queued"}>
              <span className="inspector-label">{message.isPrompt ? strings.prompt : strings.queued}</span>
              <span className="inspector-text">{message.text}</span>
            </li>
          ))}
        </ul>
      ) : null}
      {turn.request !== undefined ? (
        <details className="inspector-request">
          <summary>
            {strings.sent}: {strings.messages(turn.request.messageCount)} · {strings.contextChars(turn.request.contextChars)}
          </summary>
          <p>
            {turn.request.model} · {turn.request.thinkingLevel} · {strings.tools}: {turn.request.tools.join(", ")}
          </p>
          {turn.request.systemPrompt !== undefined ? (
            <details className="inspector-system-prompt">
              <summary>{strings.systemPrompt}</summary>
              <pre className="inspector-arguments">{turn.request.systemPrompt}</pre>
            </details>
          ) : null}
          {loadSent !== null ? (
            <details
              className="inspector-sent"
              data-testid="inspector-sent"
              onToggle={(event) => {
                if ((event.currentTarget as HTMLDetailsElement).open) openSent();
              }}
            >
              <summary>{strings.sentMessages}</summary>
              {sent === "loading" ? <p className="inspector-meta">{strings.loading}</p> : null}
              {Array.isArray(sent) ? (
                <ol className="inspector-sent-messages">
                  {sent.map((message, position) => (
                    <li key={position} data-role={message.role}>
                      <span className="inspector-label">{message.role}</span>
                      <span className="inspector-sent-text">{message.text}</span>
                    </li>
                  ))}
                </ol>
              ) : null}
            </details>
          ) : null}
        </details>
      ) : null}
      <dl className="inspector-figures">
        {turn.firstTokenMs !== undefined ? (
          <>
            <dt>{strings.firstToken}</dt>
            <dd>{formatMs(turn.firstTokenMs)}</dd>
          </>
        ) : null}
        {turn.durationMs !== undefined ? (
          <>
            <dt>{strings.duration}</dt>
            <dd>{formatMs(turn.durationMs)}</dd>
          </>
        ) : null}
        {usage !== undefined ? (
          <>
            <dt>{strings.outputTokens}</dt>
            <dd>{usage.output}</dd>
            <dt>{strings.usage}</dt>
            <dd>
              {usage.input} in · {usage.output} out{usage.cacheRead > 0 ? ` · ${usage.cacheRead} cached` : ""}
            </dd>
            <dt>{strings.cost}</dt>
            <dd>${usage.cost.toFixed(4)}</dd>
          </>
        ) : null}
        {turn.tokensPerSecond !== undefined ? (
          <>
            <dt>{strings.tokensPerSecond}</dt>
            <dd>{turn.tokensPerSecond.toFixed(1)}</dd>
          </>
        ) : null}
      </dl>
      {turn.errorMessage !== undefined ? <p className="inspector-error">{turn.errorMessage}</p> : null}
      {turn.toolCalls.length > 0 ? (
        <ul className="inspector-tools" aria-label={strings.toolCalls}>
          {turn.toolCalls.map((call) => (
            <ToolCallRow key={call.id} call={call} strings={strings} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function ToolCallRow({ call, strings }: { call: ToolCallSummary; strings: InspectorStrings }) {
  const outcome = call.isError === undefined ? "running" : call.isError ? "error" : "done";
  return (
    <li className="inspector-tool" data-testid="inspector-tool" data-outcome={outcome}>
      <details>
        <summary>
          <code>{call.name}</code>
          <span className={`inspector-outcome outcome-${outcome}`}>{outcome}</span>
          {call.durationMs !== undefined ? <span className="inspector-meta">{formatMs(call.durationMs)}</span> : null}
          {call.approval !== undefined ? (
            <span className="inspector-meta">
              {strings.approval}: {call.approval}
            </span>
          ) : null}
        </summary>
        <pre className="inspector-arguments">{JSON.stringify(call.arguments, null, 2)}</pre>
      </details>
    </li>
  );
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}

function messageOf(reason: unknown): string {
  if (typeof reason === "object" && reason !== null && "message" in reason) {
    return String((reason as { message: unknown }).message);
  }
  return String(reason);
}
