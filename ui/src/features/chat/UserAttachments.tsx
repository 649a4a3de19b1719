// The attachments of a sent message: images as thumbnails (`data:` URLs of the stored bytes, only the four image
// types), files as chips with their name (text, never markup).
import { useStrings } from "../../i18n/I18n";
import { imageDataUrl, type UserAttachment } from "../../state/user-attachments";
import { FileIcon } from "./icons";
import "./attachments.css";

export function UserAttachments({ attachments }: { attachments: readonly UserAttachment[] }) {
  const strings = useStrings().attachments;
  let imageIndex = 0;
  return (
    <div className="user-attachments" data-testid="user-attachments">
      {attachments.map((attachment, index) => {
        if (attachment.kind === "image") {
          imageIndex += 1;
          return (
            <img
              key={index}
              className="user-attachment-image"
              data-testid="user-attachment-image"
              src={imageDataUrl(attachment)}
              alt={strings.sentImage(imageIndex)}
            />
          );
        }
        return (
          <span key={index} className="user-attachment-file" data-testid="user-attachment-file" title={strings.sentFile}>
            <FileIcon />
            <span className="attachment-name">{attachment.name}</span>
          </span>
        );
      })}
    </div>
  );
}
