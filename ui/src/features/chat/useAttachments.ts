// The composer's attachments: files the user picked, pasted or dropped become chips. Each is judged by
// ./attachment-rules before it is read (count, size), an image then by its first bytes; a file's bytes go to the
// host, which reads its text (`read_attachment`). Nothing is read that the user did not hand over, and a refused
// file leaves a problem to show, never a lost draft.
import { useCallback, useRef, useState } from "react";

import { readAttachment, toCommandError } from "../../ipc/backend";
import { commandErrorText } from "../../i18n/error-text";
import { useStrings } from "../../i18n/I18n";
import {
  admissionProblem,
  isImageFile,
  sniffImageType,
  type AttachmentProblem,
  type PendingAttachment,
} from "./attachment-rules";

export interface Attachments {
  items: readonly PendingAttachment[];
  problems: readonly AttachmentProblem[];
  add: (files: readonly File[]) => void;
  remove: (id: string) => void;
  clear: () => void;
  dismissProblems: () => void;
}

export function useAttachments(): Attachments {
  const strings = useStrings();
  const [items, setItems] = useState<readonly PendingAttachment[]>([]);
  const [problems, setProblems] = useState<readonly AttachmentProblem[]>([]);
  const nextId = useRef(1);
  // The chips as of the last change, so files of one drop are counted against each other.
  const current = useRef<readonly PendingAttachment[]>([]);
  const generation = useRef(0);

  const commit = useCallback((next: readonly PendingAttachment[]) => {
    current.current = next;
    setItems(next);
  }, []);

  const add = useCallback(
    (files: readonly File[]) => {
      const found: AttachmentProblem[] = [];
      const since = generation.current;
      for (const file of files) {
        const problem = admissionProblem(file, current.current);
        if (problem !== null) {
          found.push(problem);
          continue;
        }
        const id = `att${nextId.current}`;
        nextId.current += 1;
        // Each chip shows at once, `reading`, so the counts hold for the next file of the same drop.
        if (isImageFile(file)) {
            commit([...current.current, { id, kind: "image", name: file.name, status: "reading" }]);
          void readImage(file).then(
            (image) => {
              if (generation.current !== since) return;
              if (image === null) {
                commit(current.current.filter((item) => item.id !== id));
                setProblems((shown) => [...shown, { code: "notAnImage", name: file.name }]);
                return;
              }
              commit(
                current.current.map((item) =>
                  item.id === id ? { id, kind: "image", name: file.name, status: "ready", ...image } : item,
                ),
              );
            },
            () => {
              if (generation.current !== since) return;
              commit(current.current.filter((item) => item.id !== id));
              setProblems((shown) => [...shown, { code: "unreadable", name: file.name }]);
            },
          );
          continue;
        }
        commit([...current.current, { id, kind: "file", name: file.name, status: "reading" }]);
        void readBase64(file)
          .then((data) => readAttachment(file.name, data))
          .then(
            (attached) => {
              if (generation.current !== since) return;
              commit(
                current.current.map((item) =>
                  item.id === id ? { id, kind: "file", name: attached.name, status: "ready", file: attached } : item,
                ),
              );
            },
            (error: unknown) => {
              if (generation.current !== since) return;
              commit(current.current.filter((item) => item.id !== id));
              const worded = commandErrorText(strings, toCommandError(error));
              setProblems((shown) => [...shown, { code: "host", name: file.name, ...worded }]);
            },
          );
      }
      setProblems(found);
    },
    [commit, strings],
  );

  const remove = useCallback(
    (id: string) => commit(current.current.filter((item) => item.id !== id)),
    [commit],
  );

  const clear = useCallback(() => {
    generation.current += 1;
    commit([]);
    setProblems([]);
  }, [commit]);

  const dismissProblems = useCallback(() => setProblems([]), []);

  return { items, problems, add, remove, clear, dismissProblems };
}

/** The image's checked type and its base64 data; `null` when its bytes are not a PNG, JPEG, GIF or WebP. */
async function readImage(file: Blob): Promise<{ mimeType: NonNullable<ReturnType<typeof sniffImageType>>; data: string } | null> {
  const head = new Uint8Array(await file.slice(0, 16).arrayBuffer());
  const mimeType = sniffImageType(head);
  if (mimeType === null) return null;
  return { mimeType, data: await readBase64(file) };
}

/** The file's bytes as base64 (the browser encodes; no copy through a JS string of bytes). */
function readBase64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onerror = () => reject(reader.error ?? new Error("the file could not be read"));
    reader.onload = () => {
      const url = typeof reader.result === "string" ? reader.result : "";
      const comma = url.indexOf(",");
      resolve(comma < 0 ? "" : url.slice(comma + 1));
    };
    reader.readAsDataURL(file);
  });
}
