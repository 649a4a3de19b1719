// A conversation's state built from what the host answered: its transcript (get_state, open_conversation,
// new_conversation) or a run in progress from the window's subscription snapshot. Pure functions.
import type { AgentMessage, AppState, RunSnapshot } from "../ipc/wire";
import { blocksFromMessage } from "./assistant-blocks";
import { matchVersions } from "./versions";
import {
  finalAssistant,
  initialChatState,
  userText,
  withAttachments,
  type AssistantItem,
  type ChatState,
  type ToolRun,
  type TranscriptItem,
} from "./chat";

/** The state of a conversation the host handed over whole (no run of it is followed yet). */
export function viewFromAppState(appState: AppState): ChatState {
  // Rows are numbered as if the left-out beginning were there, so they keep their ids when it arrives.
  const leftOut = appState.leftOut?.shown ?? 0;
  const loaded = fromMessages(appState.conversationId ?? "", appState.messages, leftOut + 1);
  return { ...loaded, leftOut, versions: matchVersions(loaded.transcript, appState.versions ?? []) };
}

/** The state of a conversation made of `messages` alone (a replay's starting point). */
export function viewFromMessages(conversationId: string, messages: readonly AgentMessage[]): ChatState {
  return fromMessages(conversationId, messages);
}

/** The state of a conversation whose run is in progress, as of the snapshot's last envelope. */
export function viewFromSnapshot(run: RunSnapshot): ChatState {
  const loaded = fromMessages(run.conversationId, run.messages);
  let { transcript, nextId } = loaded;
  let streamingAssistantId: string | null = null;
  if (run.streaming !== null && run.streaming.role === "assistant") {
    const streaming: AssistantItem = {
      kind: "assistant",
      id: `a${nextId}`,
      blocks: blocksFromMessage(run.streaming.content, false),
      status: "streaming",
      retried: false,
    };
    transcript = [...transcript, streaming];
    streamingAssistantId = streaming.id;
    nextId += 1;
  }
  const tools: Record<string, ToolRun> = { ...loaded.tools };
  for (const tool of run.tools) {
    tools[tool.toolCallId] = {
      toolCallId: tool.toolCallId,
      toolName: tool.toolName,
      args: tool.args,
      status: "running",
      updates: tool.partialResult === undefined ? [] : [tool.partialResult],
    };
  }
  return {
    ...loaded,
    transcript,
    tools,
    nextId,
    streamingAssistantId,
    runStatus: run.phase === "settling" ? "settling" : "running",
    runId: run.runId,
    lastRunId: run.runId,
    lastSeq: run.lastSeq,
    turnCount: run.turnCount,
  };
}

function fromMessages(conversationId: string, messages: readonly AgentMessage[], firstId = 1): ChatState {
  let nextId = firstId;
  const transcript: TranscriptItem[] = [];
  const tools: Record<string, ToolRun> = {};
  let continuing = false;
  for (const message of messages) {
    switch (message.role) {
      case "user": {
        const { text, imageCount, attachments } = userText(message);
        const user = withAttachments({ kind: "user", id: `u${nextId}`, text, imageCount, delivery: "sent" }, attachments);
        if (message.timestamp !== undefined) user.timestamp = message.timestamp;
        transcript.push(user);
        nextId += 1;
        break;
      }
      case "assistant": {
        const assistant = finalAssistant(`a${nextId}`, message, false);
        if (continuing) assistant.continuation = true;
        continuing = false;
        transcript.push(assistant);
        nextId += 1;
        break;
      }
      case "continuation":
        continuing = true;
        break;
      case "toolResult":
        tools[message.toolCallId] = {
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          args: undefined,
          status: message.isError ? "error" : "done",
          updates: [],
          result: { content: message.content, details: message.details },
        };
        break;
      default:
        // Custom message roles are the host's business; the transcript does not show them.
        break;
    }
  }
  return { ...initialChatState, conversationId, transcript, tools, nextId };
}
