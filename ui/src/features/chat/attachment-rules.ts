// What the composer accepts as an attachment, decided before anything is read: images (PNG, JPEG, GIF, WebP;
// at most 10 MB and 8 per message, desktop-host's prompt rules) checked by their first bytes, not their name;
// other files (PDF, text, Markdown, code; at most 20 MB and 8 per message) whose text the host reads. Pure.
import { isImageType, type ImageType } from "../../state/user-attachments";
import type { AttachedFile } from "../../ipc/wire";

export const MAX_IMAGES = 8;
export const MAX_IMAGE_MB = 10;
export const MAX_FILES = 8;
export const MAX_FILE_MB = 20;
const MB = 1024 * 1024;

/** What the file input offers (anything else can still be dropped or pasted, and is judged the same). */
export const ATTACH_ACCEPT =
  "image/png,image/jpeg,image/gif,image/webp,.pdf,.txt,.md,.markdown,.csv,.json,.xml,.yaml,.yml,.toml,.html,.css,.js,.jsx,.ts,.tsx,.py,.rs,.go,.java,.kt,.swift,.c,.h,.cpp,.hpp,.cs,.rb,.php,.sql,.sh,.log";

const IMAGE_EXTENSIONS = [".png", ".jpg", ".jpeg", ".gif", ".webp"];

/** A chip of the composer: `reading` while its bytes are read (an image) or the host reads its text (a file). */
export type PendingAttachment =
  | { id: string; kind: "image" | "file"; name: string; status: "reading" }
  | { id: string; kind: "image"; name: string; status: "ready"; mimeType: ImageType; data: string }
  | { id: string; kind: "file"; name: string; status: "ready"; file: AttachedFile };

export type AttachmentProblem =
  | { code: "tooManyImages" | "tooManyFiles" }
  | { code: "imageTooLarge" | "fileTooLarge" | "notAnImage" | "unsupportedImage" | "unreadable"; name: string }
  | { code: "host"; name: string; text: string; detail?: string };

/** A picked file as far as the rules look at it before reading. */
export interface PickedFile {
  name: string;
  type: string;
  size: number;
}

/** Whether a picked file goes as an image (by its declared type or name; its bytes are checked next). */
export function isImageFile(file: PickedFile): boolean {
  if (file.type.startsWith("image/")) return true;
  const name = file.name.toLowerCase();
  return IMAGE_EXTENSIONS.some((extension) => name.endsWith(extension));
}

/**
 * The problem with attaching `file` next to `pending` (the chips already there), or `null` when it may be read.
 * Counts and sizes are checked here, before a byte is read.
 */
export function admissionProblem(file: PickedFile, pending: readonly PendingAttachment[]): AttachmentProblem | null {
  if (isImageFile(file)) {
    if (file.type !== "" && !isImageType(file.type) && file.type !== "image/jpg") {
      return { code: "unsupportedImage", name: file.name };
    }
    if (pending.filter((item) => item.kind === "image").length >= MAX_IMAGES) return { code: "tooManyImages" };
    if (file.size > MAX_IMAGE_MB * MB) return { code: "imageTooLarge", name: file.name };
    return null;
  }
  if (pending.filter((item) => item.kind === "file").length >= MAX_FILES) return { code: "tooManyFiles" };
  if (file.size > MAX_FILE_MB * MB) return { code: "fileTooLarge", name: file.name };
  return null;
}

/** The image type the first bytes say, whatever the name or declared type claim; `null` for anything else. */
export function sniffImageType(head: Uint8Array): ImageType | null {
  const starts = (bytes: readonly number[], at = 0) => bytes.every((byte, index) => head[at + index] === byte);
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (starts([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (starts([0x47, 0x49, 0x46, 0x38]) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) return "image/gif";
  if (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return null;
}

/** The composer's images as the prompt sends them. */
export function promptImages(pending: readonly PendingAttachment[]): { data: string; mimeType: ImageType }[] {
  return pending.flatMap((item) =>
    item.kind === "image" && item.status === "ready" ? [{ data: item.data, mimeType: item.mimeType }] : [],
  );
}

/** The composer's files as the prompt sends them (only those the host has read). */
export function promptFiles(pending: readonly PendingAttachment[]): { name: string; text: string }[] {
  return pending.flatMap((item) =>
    item.kind === "file" && item.status === "ready" ? [{ name: item.file.name, text: item.file.text }] : [],
  );
}

/** Some attachment is still being read: Send waits. */
export function stillReading(pending: readonly PendingAttachment[]): boolean {
  return pending.some((item) => item.status === "reading");
}

/** Images wait to be sent (ready or being read). */
export function hasImages(pending: readonly PendingAttachment[]): boolean {
  return pending.some((item) => item.kind === "image");
}
