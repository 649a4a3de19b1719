// One message the user sent, as plain text (never Markdown or HTML), with its attachments below it.
import { memo } from "react";

import { useStrings } from "../../i18n/I18n";
import type { UserItem } from "../../state/chat";
import { UserAttachments } from "./UserAttachments";

export const UserMessage = memo(function UserMessage({ item }: { item: UserItem }) {
  const strings = useStrings();
  return (
    <div className={`user-row ${item.delivery}`}>
      <article className="message user" data-testid="message-user" data-delivery={item.delivery}>
        {item.text}
        {item.attachments !== undefined ? <UserAttachments attachments={item.attachments} /> : null}
      </article>
      {item.delivery === "failed" ? <div className="user-failed">{strings.notSent}</div> : null}
    </div>
  );
});
