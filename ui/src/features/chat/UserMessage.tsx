// One message the user sent, as plain text (never Markdown or HTML).
import { memo } from "react";

import { useStrings } from "../../i18n/I18n";
import type { UserItem } from "../../state/chat";

export const UserMessage = memo(function UserMessage({ item }: { item: UserItem }) {
  const strings = useStrings();
  return (
    <div className={`user-row ${item.delivery}`}>
      <article className="message user" data-testid="message-user" data-delivery={item.delivery}>
        {item.text}
      </article>
      {item.delivery === "failed" ? <div className="user-failed">{strings.notSent}</div> : null}
    </div>
  );
});
