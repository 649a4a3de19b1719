// The About section of the settings panel: name, version, a one-line description, platform and the log folder
// (the first thing a bug report needs), with a button that copies all of it as plain text and one that opens the
// log folder in the file manager.
import { useEffect, useState } from "react";

import { useStrings } from "../../i18n/I18n";
import { ErrorText } from "../../i18n/ErrorText";
import { fetchAppInfo, openLogFolder, toCommandError } from "../../ipc/backend";
import type { AppInfo, CommandError } from "../../ipc/wire";
import { aboutReport, copyText, pageClipboard, type ClipboardHost } from "./about";

interface AboutSectionProps {
  /** Where copying goes; the page's clipboard unless a test passes a fake. */
  clipboard?: ClipboardHost | undefined;
}

type CopyState = "idle" | "copied" | "failed";

export function AboutSection({ clipboard }: AboutSectionProps) {
  const strings = useStrings();
  const [info, setInfo] = useState<AppInfo | null>(null);
  const [copyState, setCopyState] = useState<CopyState>("idle");
  const [openError, setOpenError] = useState<CommandError | null>(null);

  useEffect(() => {
    let current = true;
    fetchAppInfo().then(
      (loaded) => {
        if (current) setInfo(loaded);
      },
      () => {
        // `app_info` never fails in the backend; without it the section keeps showing the app's name only.
      },
    );
    return () => {
      current = false;
    };
  }, []);

  const onCopy = () => {
    if (info === null) return;
    void copyText(aboutReport(info, navigator.userAgent), clipboard ?? pageClipboard()).then((copied) =>
      setCopyState(copied ? "copied" : "failed"),
    );
  };

  const onOpenLogFolder = () => {
    setOpenError(null);
    openLogFolder().catch((error: unknown) => setOpenError(toCommandError(error)));
  };

  return (
    <section className="about-section" data-testid="about-section" aria-labelledby="about-heading">
      <h3 id="about-heading">{strings.about}</h3>
      <p className="about-name">
        <strong>{info?.name ?? strings.appName}</strong>{" "}
        <span data-testid="about-version">{info?.version ?? ""}</span>
      </p>
      <p className="about-description">{strings.appDescription}</p>
      {info === null ? (
        <p className="settings-loading">{strings.loading}</p>
      ) : (
        <>
          <dl className="about-facts">
            <dt>{strings.platform}</dt>
            <dd data-testid="about-platform">
              {info.os} {info.arch}
            </dd>
            <dt>{strings.logFolder}</dt>
            <dd className="about-path" data-testid="about-log-dir">
              {info.logDir ?? strings.logFolderUnknown}
            </dd>
          </dl>
          <div className="about-actions">
            <button type="button" data-testid="about-copy" onClick={onCopy}>
              {strings.copyAboutInfo}
            </button>
            {copyState === "idle" ? null : (
              <span className="settings-note" role="status" data-testid="about-copy-status" data-state={copyState}>
                {copyState === "copied" ? strings.copied : strings.copyFailed}
              </span>
            )}
            {info.logDir === null ? null : (
              <button type="button" data-testid="about-open-log-folder" onClick={onOpenLogFolder}>
                {strings.openLogFolder}
              </button>
            )}
          </div>
          {openError === null ? null : (
            <p className="settings-note" role="alert" data-testid="about-open-log-folder-error">
              <ErrorText error={openError} />
            </p>
          )}
        </>
      )}
    </section>
  );
}
