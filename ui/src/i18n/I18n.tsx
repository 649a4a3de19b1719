// The current UI strings, provided by App; components read them with useStrings().
import { createContext, useContext } from "react";

import { STRINGS, type Strings } from "./strings";

export const StringsContext = createContext<Strings>(STRINGS.en);

export function useStrings(): Strings {
  return useContext(StringsContext);
}
