// Wire types: what the Rust backend sends over IPC, field for field (camelCase, as serde writes it).
// Messages, content blocks and events mirror pi's JSON (docs/pi-runtime-spec.md 1.2, 1.3, 1.5, 1.10); the
// envelope is desktop-host's wire format (crates/desktop-host/src/wire.rs, protocol version 1); the command
// payloads follow board/ipc-contract.md. Optional fields are optional here exactly where pi omits them.

/** The envelope protocol version this UI understands; envelopes of another version are refused. */
export const PROTOCOL_VERSION = 1;

// ---- Content blocks (spec 1.2) ----

export interface TextContent {
  type: "text";
  text: string;
  textSignature?: string;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
  /** True when the provider redacted the reasoning; the text is then empty or a placeholder. */
  redacted?: boolean;
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

/** pi's AgentMessage as the host sends it; custom roles may appear and are ignored by the UI. */
export type AgentMessage = UserMessage | AssistantMessage | ToolResultMessage;

// ---- Assistant message events in wire form (spec 1.5 without `partial`; `block` added on *_start) ----

export type AssistantMessageEvent =
  | { type: "text_start"; contentIndex: number; block?: TextContent }
  | { type: "text_delta"; contentIndex: number; delta: string }
  | { type: "text_end"; contentIndex: number; content: string }
  | { type: "thinking_start"; contentIndex: number; block?: ThinkingContent }
  | { type: "thinking_delta"; contentIndex: number; delta: string }
  | { type: "thinking_end"; contentIndex: number; content: string }
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
  | { type: "agent_end"; messages: AgentMessage[] }
  /** One assistant response and its tool batch begin. */
  | { type: "turn_start" }
  | { type: "turn_end"; message: AgentMessage; toolResults: ToolResultMessage[] }
  /** A message enters the transcript (prompt, steering, assistant, tool result). */
  | { type: "message_start"; message: AgentMessage }
  /** The streaming assistant message changed by exactly this delta. */
  | { type: "message_update"; assistantMessageEvent: AssistantMessageEvent }
  /** A message is complete; for the assistant this is the final message (stopReason, errorMessage, usage). */
  | { type: "message_end"; message: AgentMessage }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: unknown }
  | { type: "tool_execution_update"; toolCallId: string; toolName: string; args: unknown; partialResult: unknown }
  | { type: "tool_execution_end"; toolCallId: string; toolName: string; result: unknown; isError: boolean };

// ---- Host notices ----

export type NoticeSource = "persistence" | "settings" | "run";

export type HostNotice =
  /** The agent's runtime state after a change. */
  | { type: "state"; isStreaming: boolean; pendingToolCalls: string[]; errorMessage?: string }
  /** The run settled: the only thing that re-enables Send. */
  | { type: "idle" }
  /** A host-side failure beside the run; `message` is safe to show. */
  | { type: "error"; source: NoticeSource; message: string };

// ---- The envelope ----

/**
 * What every envelope carries beside its payload: the protocol version, the conversation it belongs to, the run
 * it belongs to (from the run's first envelope to its `idle`; absent on a notice between runs) and its number
 * (from 1 per conversation, without gaps).
 */
interface EnvelopeHeader {
  v: number;
  conversationId?: string;
  runId?: number;
  seq: number;
}

export type Envelope =
  | (EnvelopeHeader & { kind: "event"; event: AgentEvent })
  | (EnvelopeHeader & { kind: "notice"; notice: HostNotice });

// ---- The window's stream (`subscribe`) ----

/** A tool call executing now. */
export interface RunningTool {
  toolCallId: string;
  toolName: string;
  args: unknown;
  partialResult?: unknown;
}

/** A run in progress as of envelope `lastSeq` of its conversation. */
export interface RunSnapshot {
  conversationId: string;
  runId: number;
  lastSeq: number;
  phase: "running" | "settling";
  turnCount: number;
  /** The conversation's completed messages: the transcript before the run and what it added. */
  messages: AgentMessage[];
  /** The assistant message streaming now, as far as it got. */
  streaming: AgentMessage | null;
  tools: RunningTool[];
}

/** `subscribe` result: every run in progress when the window's stream began. */
export interface LiveSnapshot {
  runs: RunSnapshot[];
}

/** `prompt` / `continue_run` result: the run was accepted; its envelopes carry these ids. */
export interface RunAccepted {
  conversationId: string;
  runId: number;
}

// ---- Command payloads (board/ipc-contract.md) ----

/** Every command rejection; `message` is safe to show and says what to do. */
export interface CommandError {
  kind: "busy" | "settings" | "provider" | "storage" | "keychain" | "invalid" | "internal" | (string & {});
  message: string;
}

/** `app_info` result: what the About section shows. */
export interface AppInfo {
  name: string;
  version: string;
  /** The folder of the log files; null when the platform names none. */
  logDir: string | null;
  /** The OS the app was built for (Rust's `std::env::consts::OS`: "linux", "macos", "windows"). */
  os: string;
  /** The CPU architecture the app was built for ("x86_64", "aarch64"). */
  arch: string;
}

export interface ModelRef {
  provider: string;
  id: string;
  name: string;
}

/** `get_state` / `new_conversation` result. */
export interface AppState {
  isStreaming: boolean;
  pendingToolCalls: string[];
  errorMessage?: string;
  messages: AgentMessage[];
  model: ModelRef;
  conversationId?: string;
}

export type LanguageSetting = "auto" | "en" | "zh";

export interface ProviderPreset {
  id: string;
  label: string;
  api: string;
  baseUrl: string;
  model: string;
  needsKey: boolean;
}

/** The editable settings (`save_settings` argument). */
export interface SettingsInput {
  preset: string;
  api: string;
  baseUrl: string;
  model: string;
  thinkingLevel: string;
  systemPrompt: string;
  language: LanguageSetting;
}

/**
 * Where API keys go: the OS keychain, the private 0600 file the user accepted, or nowhere yet (no keychain
 * answers and the user has not accepted the file; `accept_key_file_fallback` does).
 */
export type KeyStorage = "keychain" | "file" | "unavailable";

/** `get_settings` result: the settings plus whether a key is stored; never the key itself. */
export interface SettingsView extends SettingsInput {
  apiKeySet: boolean;
  keyStorage: KeyStorage;
  presets: ProviderPreset[];
}

/** One entry of `list_download_files` / `list_folder` details (desktop-host `FileEntry`). */
export interface FileEntry {
  name: string;
  relativePath: string;
  size: number;
  modifiedMs?: number;
  kind: string;
  lossyName?: boolean;
}

/** `list_download_files` / `list_folder` result details. */
export interface FileListDetails {
  folder: string;
  path: string;
  entries: FileEntry[];
  totalMatched: number;
  scanned?: number;
  skipped?: number;
  scanTruncated?: boolean;
  nextCursor?: string | null;
}
