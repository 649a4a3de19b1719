// How tokens and dollars read in the window.
import type { Language } from "../../i18n/strings";

export function formatTokens(count: number, language: Language): string {
  return count.toLocaleString(language);
}

/** US dollars: cents for a dollar or more, four decimals below, and "<$0.0001" for a cost that small. */
export function formatCost(dollars: number): string {
  if (dollars >= 1) return `$${dollars.toFixed(2)}`;
  if (dollars > 0 && dollars < 0.0001) return "<$0.0001";
  return `$${dollars.toFixed(4)}`;
}
