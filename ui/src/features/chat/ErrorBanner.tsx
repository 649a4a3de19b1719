// A refused command, a host error notice or an incompatible backend, shown above the conversation.
import { useStrings } from "../../i18n/I18n";
import type { Strings } from "../../i18n/strings";
import { commandErrorText } from "../../i18n/error-text";
import type { Banner } from "../../state/chat";
import { AlertIcon, CloseIcon } from "./icons";

export function ErrorBanner({ banner, onDismiss }: { banner: Banner; onDismiss: (() => void) | null }) {
  const strings = useStrings();
  return (
    <div className="error-banner" data-testid="error-banner" data-kind={banner.kind} role="alert">
      <AlertIcon />
      <div className="error-banner-text">
        {banner.source === "protocol" ? <strong>{strings.protocolTitle}</strong> : bannerText(strings, banner)}
        {banner.detail !== undefined ? <div className="error-banner-detail">{banner.detail}</div> : null}
      </div>
      {onDismiss !== null ? (
        <button type="button" className="icon-button" aria-label={strings.dismiss} title={strings.dismiss} onClick={onDismiss}>
          <CloseIcon />
        </button>
      ) : null}
    </div>
  );
}

function bannerText(strings: Strings, banner: Banner): string {
  if (banner.source === "notice") {
    const texts: Record<string, string> = strings.noticeSources;
    return texts[banner.code] ?? strings.errorCodes.unexpected;
  }
  return commandErrorText(strings, { kind: banner.kind, code: banner.code }).text;
}
