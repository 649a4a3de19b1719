// Above the composer: the attachments waiting to be sent, as chips (an image's preview, a file's name and pages,
// a remove button), the problems of the last attach (too large, not an image, no text layer …) and, when the
// model does not read images, the notice that this message cannot go with them. Names are text, never markup.
import { useStrings } from "../../i18n/I18n";
import { imageDataUrl } from "../../state/user-attachments";
import type { AttachmentProblem, PendingAttachment } from "./attachment-rules";
import { MAX_FILE_MB, MAX_FILES, MAX_IMAGE_MB, MAX_IMAGES } from "./attachment-rules";
import { CloseIcon, FileIcon } from "./icons";
import "./attachments.css";

interface AttachmentTrayProps {
  items: readonly PendingAttachment[];
  problems: readonly AttachmentProblem[];
  /** The model's name when it does not read images and images wait; `null` otherwise. */
  noImagesFor: string | null;
  onRemove: (id: string) => void;
  onDismissProblems: () => void;
}

export function AttachmentTray({ items, problems, noImagesFor, onRemove, onDismissProblems }: AttachmentTrayProps) {
  const strings = useStrings().attachments;
  if (items.length === 0 && problems.length === 0) return null;
  return (
    <div className="attachment-tray" data-testid="attachment-tray">
      {problems.length > 0 ? (
        <div className="attachment-problems" data-testid="attachment-error" role="alert">
          <ul>
            {problems.map((problem, index) => (
              <li key={index}>{problemText(strings, problem)}</li>
            ))}
          </ul>
          <button type="button" className="ghost-button attachment-dismiss" onClick={onDismissProblems}>
            {strings.dismiss}
          </button>
        </div>
      ) : null}
      {noImagesFor !== null ? (
        <div className="attachment-notice" data-testid="attachment-notice" role="alert">
          {strings.noImageInput(noImagesFor)}
        </div>
      ) : null}
      {items.length > 0 ? (
        <ul className="attachment-chips">
          {items.map((item) => (
            <li
              key={item.id}
              className="attachment-chip"
              data-testid="attachment-chip"
              data-kind={item.kind}
              data-state={item.status}
            >
              {item.kind === "image" && item.status === "ready" ? (
                <img className="attachment-preview" src={imageDataUrl(item)} alt={strings.image(item.name)} />
              ) : (
                <span className="attachment-file-icon">
                  <FileIcon />
                </span>
              )}
              <span className="attachment-name" data-testid="attachment-name" title={item.name}>
                {item.name}
              </span>
              <span className="attachment-meta">{chipMeta(strings, item)}</span>
              <button
                type="button"
                className="icon-button attachment-remove"
                data-testid="attachment-remove"
                aria-label={strings.remove(item.name)}
                title={strings.remove(item.name)}
                onClick={() => onRemove(item.id)}
              >
                <CloseIcon />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

type AttachmentStrings = ReturnType<typeof useStrings>["attachments"];

function chipMeta(strings: AttachmentStrings, item: PendingAttachment): string {
  if (item.status === "reading") return strings.reading;
  if (item.kind === "image") return "";
  const parts: string[] = [];
  if (item.file.pageCount !== undefined) parts.push(strings.pages(item.file.pageCount));
  if (item.file.truncated) parts.push(strings.truncated);
  return parts.join(" · ");
}

function problemText(strings: AttachmentStrings, problem: AttachmentProblem): string {
  switch (problem.code) {
    case "tooManyImages":
      return strings.tooManyImages(MAX_IMAGES);
    case "tooManyFiles":
      return strings.tooManyFiles(MAX_FILES);
    case "imageTooLarge":
      return strings.imageTooLarge(problem.name, MAX_IMAGE_MB);
    case "fileTooLarge":
      return strings.fileTooLarge(problem.name, MAX_FILE_MB);
    case "notAnImage":
      return strings.notAnImage(problem.name);
    case "unsupportedImage":
      return strings.unsupportedImage(problem.name);
    case "unreadable":
      return strings.unreadable(problem.name);
    case "host":
      return strings.fileProblem(problem.name, problem.text);
    default:
      return unknownProblem(problem);
  }
}

function unknownProblem(_problem: never): string {
  return "";
}
