// The IPC types. What the host defines (envelopes, notices, the subscription snapshot, every command's payloads
// and results) is generated from the Rust types into ./bindings (`./scripts/generate-bindings.sh`; layer 1 of the
// test ladder fails when they are stale). pi's message and event JSON is hand-kept in ./pi. The tool result
// details the UI reads (file lists) are below.
import type { CommandError as GeneratedCommandError } from "./bindings/CommandError";
import type { SettingsInput } from "./bindings/SettingsInput";

export * from "./pi";
export type { AppInfo } from "./bindings/AppInfo";
export type { ApprovalDecision } from "./bindings/ApprovalDecision";
export type { ApprovalOutcome } from "./bindings/ApprovalOutcome";
export type { ApprovalRequest } from "./bindings/ApprovalRequest";
export type { AppState } from "./bindings/AppState";
export type { AttachedFile } from "./bindings/AttachedFile";
export type { ConversationList } from "./bindings/ConversationList";
export type { ConversationSummary } from "./bindings/ConversationSummary";
export type { DayGroup } from "./bindings/DayGroup";
export type { DeletedConversation } from "./bindings/DeletedConversation";
export type { DeletedMessages } from "./bindings/DeletedMessages";
export type { Envelope } from "./bindings/Envelope";
export type { ErrorKind } from "./bindings/ErrorKind";
export type { ExportFormat } from "./bindings/ExportFormat";
export type { ExportedFile } from "./bindings/ExportedFile";
export type { FileInput } from "./bindings/FileInput";
export type { HostNotice } from "./bindings/HostNotice";
export type { ImageInput } from "./bindings/ImageInput";
export type { KeyStorageView } from "./bindings/KeyStorageView";
export type { LiveSnapshot } from "./bindings/LiveSnapshot";
export type { McpServerState } from "./bindings/McpServerState";
export type { MessagePairDeleted } from "./bindings/MessagePairDeleted";
export type { MessageVersion } from "./bindings/MessageVersion";
export type { McpServerView } from "./bindings/McpServerView";
export type { McpServersView } from "./bindings/McpServersView";
export type { McpToolView } from "./bindings/McpToolView";
export type { ModelSummary } from "./bindings/ModelSummary";
export type { NoticeSource } from "./bindings/NoticeSource";
export type { PresetView } from "./bindings/PresetView";
export type { RunAccepted } from "./bindings/RunAccepted";
export type { RunPhase } from "./bindings/RunPhase";
export type { RunSnapshot } from "./bindings/RunSnapshot";
export type { RunningTool } from "./bindings/RunningTool";
export type { SearchHit } from "./bindings/SearchHit";
export type { SettingsInput } from "./bindings/SettingsInput";
export type { SettingsView } from "./bindings/SettingsView";
export type { SnippetPart } from "./bindings/SnippetPart";
export type { StorageStatus } from "./bindings/StorageStatus";

/** The envelope protocol version this UI understands; envelopes of another version are refused. */
export const PROTOCOL_VERSION = 1;

/**
 * Every command rejection: the UI words `code` (i18n/error-text.ts); `detail` is safe to show. A kind or code this
 * window does not know (from a newer host) is kept as it came.
 */
export type CommandError = Omit<GeneratedCommandError, "kind" | "code"> & {
  kind: GeneratedCommandError["kind"] | (string & {});
  code: GeneratedCommandError["code"] | "unexpected" | (string & {});
};

/** The language setting: follow the system, or one of the two languages. */
export type LanguageSetting = SettingsInput["language"];

/** The theme setting: follow the system's colour scheme, or always light or dark. */
export type ThemeSetting = SettingsInput["theme"];

/** The key that sends the composer's text: Enter (Shift+Enter a new line) or Ctrl+Enter (Enter a new line). */
export type SendKeySetting = SettingsInput["sendKey"];

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
