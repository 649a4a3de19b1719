// "Approvals" in the settings: whether the built-in tools ask before they run, and the tools allowed "in this
// conversation" (conversation, server, tool), each with Revoke. Read when the panel opens; each change answers
// with what the host keeps now.
import { useEffect, useState } from "react";

import { useStrings } from "../../i18n/I18n";
import {
  approvalSettings,
  conversationGrants,
  revokeConversationGrant,
  saveApprovalSettings,
  toCommandError,
} from "../../ipc/backend";
import type { ApprovalSettings } from "../../ipc/bindings/ApprovalSettings";
import type { ConversationGrant } from "../../ipc/bindings/ConversationGrant";
import type { CommandError } from "../../ipc/wire";
import { ErrorText } from "../../i18n/ErrorText";

export function ApprovalSection() {
  const strings = useStrings();
  const texts = strings.approvalSettings;
  const [settings, setSettings] = useState<ApprovalSettings | null>(null);
  const [grants, setGrants] = useState<ConversationGrant[] | null>(null);
  const [error, setError] = useState<CommandError | null>(null);
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    let current = true;
    const failed = (failure: unknown) => {
      if (current) setError(toCommandError(failure));
    };
    approvalSettings().then((loaded) => {
      if (current) setSettings(loaded);
    }, failed);
    conversationGrants().then((loaded) => {
      if (current) setGrants(loaded);
    }, failed);
    return () => {
      current = false;
    };
  }, []);

  const setAsk = (askBeforeBuiltInTools: boolean) => {
    setSaving(true);
    setError(null);
    saveApprovalSettings({ askBeforeBuiltInTools }).then(
      (saved) => {
        setSaving(false);
        setSettings(saved);
      },
      (failure: unknown) => {
        setSaving(false);
        setError(toCommandError(failure));
      },
    );
  };

  const revoke = (grant: ConversationGrant) => {
    setError(null);
    revokeConversationGrant(grant.conversationId, grant.server, grant.tool).then(setGrants, (failure: unknown) =>
      setError(toCommandError(failure)),
    );
  };

  return (
    <section className="mcp-section approval-section" data-testid="approval-settings" aria-labelledby="approval-heading">
      <h3 id="approval-heading">{texts.title}</h3>
      {error !== null ? (
        <p className="settings-error" role="alert">
          <ErrorText error={error} />
        </p>
      ) : null}
      <label className="approval-toggle">
        <input
          type="checkbox"
          data-testid="ask-builtin-tools"
          checked={settings?.askBeforeBuiltInTools ?? false}
          disabled={settings === null || saving}
          onChange={(event) => setAsk(event.target.checked)}
        />{" "}
        {texts.askBuiltIn}
      </label>
      <h4>{texts.grantsTitle}</h4>
      <p className="settings-note">{texts.grantsIntro}</p>
      {grants === null ? null : grants.length === 0 ? (
        <p className="settings-note" data-testid="conversation-grants-none">
          {texts.none}
        </p>
      ) : (
        <ul className="mcp-grants conversation-grants">
          {grants.map((grant) => (
            <li
              key={`${grant.conversationId}\u0000${grant.server}\u0000${grant.tool}`}
              data-testid="conversation-grant"
              data-conversation={grant.conversationId}
              data-server={grant.server}
              data-tool={grant.tool}
            >
              <span>
                <span className="grant-conversation">{grant.conversationTitle ?? texts.untitled}</span>
                {" · "}
                <span className="grant-server">{grant.builtIn ? strings.approval.builtInServer : grant.server}</span>
                {" · "}
                <code className="grant-tool">{grant.tool}</code>
              </span>
              <button type="button" data-testid="revoke-conversation-grant" onClick={() => revoke(grant)}>
                {texts.revoke}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
