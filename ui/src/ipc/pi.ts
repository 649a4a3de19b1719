// pi's JSON, kept by hand: content blocks, messages, assistant message events in wire form and agent events,
// exactly as docs/pi-runtime-spec.md (1.2, 1.3, 1.5, 1.10) and the conformance traces have them. The host passes
// them through unchanged, so they are not generated from the Rust types (./bindings holds what the host defines).
// Optional fields are optional here exactly where pi omits them.

/** pi's thinking levels (`thinkingLevel` of the session state and the settings). */
export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh";

// ---- Content blocks (spec 1.2) ----

export interface TextContent {
  type: "text";
  text: string;
  textSignature?: string;
  /** Lean stream only, on an assistant `message_end`: `text` is empty; the text is what the block's deltas built. */
  streamed?: true;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
  /** True when the provider redacted the reasoning; the text is then empty or a placeholder. */
  redacted?: boolean;
  /** As `TextContent.streamed`, for `thinking`. */
  streamed?: true;
}

export interface ImageContent {
  type: "image";
  /** Base64 without a data: prefix. */
  data: string;
  mimeType: string;
}

export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  /** A JSON object by contract; the tolerant parser can rarely leave another JSON value. */
  arguments: unknown;
  thoughtSignature?: string;
  namespace?: string;
}

export type AssistantBlock = TextContent | ThinkingContent | ToolCall;
export type UserBlock = TextContent | ImageContent;

// ---- Messages (spec 1.3) ----

export interface Cost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h?: number;
  reasoning?: number;
  totalTokens: number;
  cost: Cost;
}

export type StopReason = "pending" | "stop" | "length" | "toolUse" | "error" | "aborted" | "deferred";

export interface UserMessage {
  role: "user";
  /** A string stays a string; otherwise text and image blocks. */
  content: string | UserBlock[];
  timestamp?: number;
}

export interface AssistantMessage {
  role: "assistant";
  content: AssistantBlock[];
  api: string;
  provider: string;
  model: string;
  responseModel?: string;
  responseId?: string;
  /** Always present in pi's output; a few recorded scenarios omit it, so the UI tolerates its absence. */
  usage?: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  timestamp?: number;
}

export interface ToolResultMessage {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: UserBlock[];
  details?: unknown;
  isError: boolean;
  timestamp?: number;
}

/**
 * The host's request to continue an answer cut off by the length limit (desktop-host `CONTINUATION_ROLE`): the
 * model reads it as a user message asking to go on; the window shows the answers before and after it as one.
 */
export interface ContinuationMessage {
  role: "continuation";
  timestamp?: number;
}

/** pi's AgentMessage as the host sends it; other custom roles may appear and are ignored by the UI. */
export type AgentMessage = UserMessage | AssistantMessage | ToolResultMessage | ContinuationMessage;

// ---- Assistant message events in wire form (spec 1.5 without `partial`; `block` added on *_start) ----

export type AssistantMessageEvent =
  | { type: "text_start"; contentIndex: number; block?: TextContent }
  | { type: "text_delta"; contentIndex: number; delta: string }
  /** `content` is absent on the lean stream when it is what the block's deltas built. */
  | { type: "text_end"; contentIndex: number; content?: string }
  | { type: "thinking_start"; contentIndex: number; block?: ThinkingContent }
  | { type: "thinking_delta"; contentIndex: number; delta: string }
  | { type: "thinking_end"; contentIndex: number; content?: string }
  | { type: "toolcall_start"; contentIndex: number; block?: ToolCall }
  | { type: "toolcall_delta"; contentIndex: number; delta: string }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall };

// ---- Agent events (spec 1.10) ----

/** What a tool returned: `content` went to the model, `details` is for the UI. Extra keys ride along. */
export interface AgentToolResult {
  content?: UserBlock[];
  details?: unknown;
}

export type AgentEvent =
  /** A run began; exactly one `agent_end` follows. */
  | { type: "agent_start" }
  /** The loop will emit nothing more; the run settles only at the host's `idle` notice. */
  | { type: "agent_end"; messages?: AgentMessage[] }
  /** One assistant response and its tool batch begin. */
  | { type: "turn_start" }
  /** On the lean stream `turn_end` and `agent_end` carry only their type (each message had its `message_end`). */
  | { type: "turn_end"; message?: AgentMessage; toolResults?: ToolResultMessage[] }
  /** A message enters the transcript (prompt, steering, assistant, tool result). */
  | { type: "message_start"; message: AgentMessage }
  /** The streaming assistant message changed by exactly this delta. */
  | { type: "message_update"; assistantMessageEvent: AssistantMessageEvent }
  /** A message is complete; for the assistant this is the final message (stopReason, errorMessage, usage). */
  | { type: "message_end"; message: AgentMessage }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: unknown }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; args: unknown; partialResult: unknown }
  | { type: "tool_execution_end"; toolCallId: string; toolName: string; result: unknown; isError: boolean };
