// What a user message carries besides its text, read back from pi's JSON as the host stores it (desktop-host
// `attachment`): image blocks, and one text block per attached file,
//
//   <attached-file name="NAME">
//   TEXT
//   </attached-file>
//
// whose first line is the opening tag alone (NAME with & " < > escaped as entities, no line breaks) and whose
// last line is the closing tag alone. The window shows such a block as a chip with the file's name; the text
// stays with the model. Anything else is the message's own text.
import type { ImageContent, UserMessage } from "../ipc/wire";

/** The image types the host accepts; only these become previews (a stored type outside them is not shown). */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type ImageType = (typeof IMAGE_TYPES)[number];

export type UserAttachment = { kind: "image"; mimeType: ImageType; data: string } | { kind: "file"; name: string };

const OPEN_PREFIX = '<attached-file name="';
const OPEN_SUFFIX = '">';
const CLOSE_TAG = "</attached-file>";

export function isImageType(type: string): type is ImageType {
  return (IMAGE_TYPES as readonly string[]).includes(type);
}

/** The file name and text of an attached file's block; `null` for any other text. */
export function parseFileBlock(block: string): { name: string; text: string } | null {
  if (!block.startsWith(OPEN_PREFIX)) return null;
  const lineEnd = block.indexOf("\n");
  if (lineEnd < 0) return null;
  const openLine = block.slice(OPEN_PREFIX.length, lineEnd);
  if (!openLine.endsWith(OPEN_SUFFIX)) return null;
  const escaped = openLine.slice(0, -OPEN_SUFFIX.length);
  if (/["<>]/.test(escaped)) return null;
  const rest = block.slice(lineEnd + 1);
  const closing = `\n${CLOSE_TAG}`;
  if (rest === CLOSE_TAG) return { name: unescapeName(escaped), text: "" };
  if (!rest.endsWith(closing)) return null;
  return { name: unescapeName(escaped), text: rest.slice(0, -closing.length) };
}

function unescapeName(name: string): string {
  return name.replaceAll("&quot;", '"').replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
}

/** A stored image as a `data:` URL for an `<img>` (the CSP allows `data:` images). */
export function imageDataUrl(image: { mimeType: ImageType; data: string }): string {
  return `data:${image.mimeType};base64,${image.data}`;
}

/** The message's own text, and its attachments in the order they came. */
export function userContent(message: UserMessage): { text: string; attachments: UserAttachment[] } {
  if (typeof message.content === "string") return { text: message.content, attachments: [] };
  let text = "";
  const attachments: UserAttachment[] = [];
  for (const block of message.content) {
    if (block.type === "text") {
      const file = parseFileBlock(block.text);
      if (file === null) text += block.text;
      else attachments.push({ kind: "file", name: file.name });
    } else {
      const image = imageAttachment(block);
      if (image !== null) attachments.push(image);
    }
  }
  return { text, attachments };
}

function imageAttachment(block: ImageContent): UserAttachment | null {
  return isImageType(block.mimeType) ? { kind: "image", mimeType: block.mimeType, data: block.data } : null;
}
