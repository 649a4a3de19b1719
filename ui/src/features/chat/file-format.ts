// How file sizes and times read in tool cards.
import type { Language } from "../../i18n/strings";

const UNITS = ["B", "KB", "MB", "GB", "TB"];

/** 1536 → "1.5 KB"; powers of 1024, one decimal below 10 units. */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return "";
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const digits = unit === 0 || value >= 10 ? 0 : 1;
  return `${value.toFixed(digits)} ${UNITS[unit] ?? "B"}`;
}

/** A modification time in the UI language, to the minute, in the local time zone. */
export function formatModified(modifiedMs: number | undefined, language: Language): string {
  if (modifiedMs === undefined || !Number.isFinite(modifiedMs)) return "";
  return new Intl.DateTimeFormat(language === "zh" ? "zh-CN" : "en-GB", {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
  }).format(new Date(modifiedMs));
}
