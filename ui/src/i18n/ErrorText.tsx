// A refused command or a connection problem, worded in the UI's language, with the host's detail beneath.
import { useStrings } from "./I18n";
import { commandErrorText, type WordedError } from "./error-text";
import type { CommandError } from "../ipc/wire";

export function ErrorText({ error }: { error: CommandError }) {
  const strings = useStrings();
  return <WordedErrorText worded={commandErrorText(strings, error)} />;
}

export function WordedErrorText({ worded }: { worded: WordedError }) {
  return (
    <>
      <span className="error-text">{worded.text}</span>
      {worded.detail !== undefined ? <span className="error-detail">{worded.detail}</span> : null}
    </>
  );
}
