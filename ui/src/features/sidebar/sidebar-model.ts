// Pure helpers of the sidebar: day labels, titles, what a search hit shows. No IO, no React.
import type { ConversationSummary, DayGroup, SearchHit } from "../../ipc/conversations";
import type { SidebarStrings } from "./sidebar-strings";

/** `YYYY-MM-DD` of `date` in the local time zone (the backend groups days the same way). */
export function localDay(date: Date): string {
  const month = String(date.getMonth() + 1).padStart(2, "0");
  const day = String(date.getDate()).padStart(2, "0");
  return `${date.getFullYear()}-${month}-${day}`;
}

/** The day before `day` (`YYYY-MM-DD`), across month and year ends. */
export function previousDay(day: string): string {
  const [year, month, date] = day.split("-").map(Number);
  if (year === undefined || month === undefined || date === undefined) return day;
  return localDay(new Date(year, month - 1, date - 1));
}

/** "Today", "Yesterday", or the day itself. */
export function dayLabel(day: string, today: string, strings: SidebarStrings): string {
  if (day === today) return strings.today;
  if (day === previousDay(today)) return strings.yesterday;
  return day;
}

/** The title to show; the placeholder until the first user message gave one. */
export function conversationTitle(conversation: Pick<ConversationSummary, "title">, strings: SidebarStrings): string {
  const title = conversation.title?.trim() ?? "";
  return title === "" ? strings.untitled : title;
}

/** The role of the message a hit is in, as a short label. */
export function hitRoleLabel(hit: SearchHit, strings: SidebarStrings): string {
  if (hit.role === "user") return strings.roleUser;
  if (hit.role === "assistant") return strings.roleAssistant;
  return strings.roleTool;
}

/** Every conversation of `days`, in list order. */
export function allConversations(days: readonly DayGroup[]): ConversationSummary[] {
  return days.flatMap((group) => group.conversations);
}

/** How long an undo toast stays, in ms (never negative). */
export function undoDelayMs(undoUntil: number, now: number): number {
  return Math.max(0, undoUntil - now);
}

/** A search box's text as sent: trimmed; `null` when there is nothing to search for. */
export function searchQuery(text: string): string | null {
  const query = text.trim();
  return query === "" ? null : query;
}

/**
 * The conversation `step` places from `activeId` in list order (-1 the one above, 1 the one below), or null at
 * either end or when the list is empty. Without an active one in the list, the first (or last) is next.
 */
export function adjacentConversationId(days: readonly DayGroup[], activeId: string | null, step: -1 | 1): string | null {
  const ids = allConversations(days).map((conversation) => conversation.id);
  const index = activeId === null ? -1 : ids.indexOf(activeId);
  if (index === -1) return (step === 1 ? ids[0] : ids[ids.length - 1]) ?? null;
  return ids[index + step] ?? null;
}
