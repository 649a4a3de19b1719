// Turns a pi-agent conformance trace (shared/conformance/expected/*.trace.json) into the envelopes the host
// would send for it: message_update without `message`, `block` on *_start, numbered, with the state and idle
// notices around the run. Run once by hand; the tests read only the JSON it wrote here.
//   node src/state/__fixtures__/from-trace.mjs <trace.json>... (from ui/)
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

function toEnvelopes(trace) {
  const envelopes = [];
  const push = (payload) => envelopes.push({ v: 1, seq: envelopes.length + 1, ...payload });
  const pending = [];
  const state = (isStreaming, errorMessage) =>
    push({
      kind: "notice",
      notice: {
        type: "state",
        isStreaming,
        pendingToolCalls: [...pending],
        ...(errorMessage === undefined ? {} : { errorMessage }),
      },
    });
  let lastError;
  for (const event of trace.events) {
    if (event.type === "message_update") {
      const assistantMessageEvent = { ...event.assistantMessageEvent };
      if (/_start$/.test(assistantMessageEvent.type)) {
        assistantMessageEvent.block = event.message.content[assistantMessageEvent.contentIndex];
      }
      push({ kind: "event", event: { type: "message_update", assistantMessageEvent } });
      continue;
    }
    push({ kind: "event", event });
    if (event.type === "agent_start") state(true);
    if (event.type === "tool_execution_start") {
      pending.push(event.toolCallId);
      state(true);
    }
    if (event.type === "tool_execution_end") {
      pending.splice(pending.indexOf(event.toolCallId), 1);
      state(true);
    }
    if (event.type === "message_end" && event.message.role === "assistant") lastError = event.message.errorMessage;
    if (event.type === "agent_end") {
      state(false, lastError);
      push({ kind: "notice", notice: { type: "idle" } });
    }
  }
  return envelopes;
}

for (const path of process.argv.slice(2)) {
  const trace = JSON.parse(readFileSync(path, "utf8"));
  const out = join(here, basename(path).replace(/\.trace\.json$/, ".envelopes.json"));
  writeFileSync(out, `${JSON.stringify(toEnvelopes(trace), null, 1)}\n`);
  console.log(`${out}: from ${trace.scenario}`);
}
