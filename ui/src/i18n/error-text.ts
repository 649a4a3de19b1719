// The words for what the host reports as codes: a refused command (`CommandError.code`), a host notice (its
// source) and a connection problem (its kind). The host's own words travel as the detail, shown beside them.
import type { Problem } from "../ipc/bindings/Problem";
import type { CommandError } from "../ipc/wire";
import type { Strings } from "./strings";

/** A text for the user in the UI's language, and what the failing part said (often in English), if anything. */
export interface WordedError {
  text: string;
  detail?: string;
}

/** A refused command in the UI's language; a code from a newer host gets the generic text. */
export function commandErrorText(strings: Strings, error: CommandError): WordedError {
  const texts: Record<string, string> = strings.errorCodes;
  const text = texts[error.code] ?? strings.errorCodes.unexpected;
  return error.detail === undefined || error.detail === "" ? { text } : { text, detail: error.detail };
}

/** A connection problem (Test connection, the model list) in the UI's language, with the host's explanation. */
export function problemText(strings: Strings, problem: Problem): WordedError {
  const texts: Record<string, string> = strings.problemKinds;
  return { text: texts[problem.kind] ?? strings.problemKinds.other, detail: problem.message };
}

/** "text (detail)" on one line, for places with room for a single line. */
export function oneLine(worded: WordedError): string {
  return worded.detail === undefined ? worded.text : `${worded.text} (${worded.detail})`;
}
