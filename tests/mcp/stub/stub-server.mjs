#!/usr/bin/env node
// A small MCP server over stdio for the cases the reference servers cannot show on demand: a server that never
// answers (the handshake, or a call), one that writes junk to stdout, one killed while a call waits, and one whose
// tools change (`notifications/tools/list_changed`). Newline-delimited JSON-RPC, no dependencies.
//
//   node stub-server.mjs [--silent] [--junk]
//   --silent  reads everything and never answers (not even `initialize`)
//   --junk    writes lines that are not JSON to stdout before every answer
// Tools: `echo {text}`; `hang` (never answers); `grow` (adds the tool `extra`, changes `echo`'s description and
// says the list changed); `slow` (progress every 20 ms, never answers; when cancelled it sends one more progress,
// as real servers do); `cancelled` (the ids of the requests it was told were cancelled). With STUB_PID_FILE set,
// the process id is written there at start.
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const silent = process.argv.includes("--silent");
const junk = process.argv.includes("--junk");
if (process.env.STUB_PID_FILE) writeFileSync(process.env.STUB_PID_FILE, String(process.pid));

let grown = false;
const cancelled = [];
const progressOf = new Map();
const tools = () => [
  {
    name: "echo",
    description: grown ? "Echoes the text back, changed." : "Echoes the text back.",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
  },
  { name: "hang", description: "Never answers.", inputSchema: { type: "object" } },
  { name: "grow", description: "Adds a tool.", inputSchema: { type: "object" } },
  { name: "slow", description: "Reports progress and never ends.", inputSchema: { type: "object" } },
  { name: "cancelled", description: "Lists the cancelled requests.", inputSchema: { type: "object" } },
  ...(grown ? [{ name: "extra", description: "Arrived later.", inputSchema: { type: "object" } }] : []),
];

const send = (message) => {
  if (junk) process.stdout.write("stub: this line is not JSON-RPC\n{not json either\n");
  process.stdout.write(JSON.stringify(message) + "\n");
};
const reply = (id, result) => send({ jsonrpc: "2.0", id, result });

createInterface({ input: process.stdin }).on("line", (line) => {
  if (silent || !line.trim()) return;
  const message = JSON.parse(line);
  switch (message.method) {
    case "initialize":
      return reply(message.id, {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: { listChanged: true } },
        serverInfo: { name: "stub", version: "1.0.0" },
      });
    case "tools/list":
      return reply(message.id, { tools: tools() });
    case "tools/call": {
      const { name, arguments: args } = message.params;
      if (name === "hang") return;
      if (name === "slow") {
        const token = message.params._meta?.progressToken;
        let step = 0;
        const progress = () =>
          send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: ++step } });
        progressOf.set(message.id, { progress, timer: setInterval(progress, 20) });
        return;
      }
      if (name === "cancelled") return reply(message.id, { content: [{ type: "text", text: JSON.stringify(cancelled) }] });
      if (name === "grow") {
        grown = true;
        reply(message.id, { content: [{ type: "text", text: "grown" }] });
        return send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      }
      if (name === "echo") return reply(message.id, { content: [{ type: "text", text: String(args?.text ?? "") }] });
      return reply(message.id, { content: [{ type: "text", text: `unknown tool ${name}` }], isError: true });
    }
    case "notifications/cancelled": {
      const id = message.params.requestId;
      cancelled.push(id);
      const running = progressOf.get(id);
      if (running) {
        clearInterval(running.timer);
        running.progress();
      }
      return;
    }
    case "ping":
      return reply(message.id, {});
    default:
      if (message.id !== undefined) {
        send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `no method ${message.method}` } });
      }
  }
});
process.stdin.on("end", () => process.exit(0));
