import { describe, expect, it } from "vitest";

import { adjacentConversationId, conversationTitle, dayLabel, localDay, previousDay, searchQuery, undoDelayMs } from "./sidebar-model";
import { SIDEBAR_STRINGS } from "./sidebar-strings";

const en = SIDEBAR_STRINGS.en;

describe("day labels", () => {
  it("names today and yesterday and keeps older days as dates", () => {
    expect(dayLabel("2026-11-30", "2026-11-30", en)).toBe("Today");
    expect(dayLabel("2026-11-29", "2026-11-30", en)).toBe("Yesterday");
    expect(dayLabel("2026-11-28", "2026-11-30", en)).toBe("2026-11-28");
    expect(dayLabel("2026-11-29", "2026-11-30", SIDEBAR_STRINGS.zh)).toBe("昨天");
  });

  it("finds the previous day across month and year ends", () => {
    expect(previousDay("2026-03-01")).toBe("2026-02-28");
    expect(previousDay("2024-03-01")).toBe("2024-02-29");
    expect(previousDay("2027-01-01")).toBe("2026-12-31");
  });

  it("formats a local day with zero padding", () => {
    expect(localDay(new Date(2026, 0, 5, 23, 59))).toBe("2026-01-05");
  });
});

describe("titles, search and undo", () => {
  it("shows a placeholder for an untitled conversation", () => {
    expect(conversationTitle({ title: null }, en)).toBe("New conversation");
    expect(conversationTitle({ title: "   " }, SIDEBAR_STRINGS.zh)).toBe("新对话");
    expect(conversationTitle({ title: " PDF 清单 " }, en)).toBe("PDF 清单");
  });

  it("searches only for something", () => {
    expect(searchQuery("   ")).toBeNull();
    expect(searchQuery("  下载 ")).toBe("下载");
  });

  it("keeps the undo toast until the window closes, never a negative delay", () => {
    expect(undoDelayMs(10_000, 4_000)).toBe(6_000);
    expect(undoDelayMs(10_000, 12_000)).toBe(0);
  });
});

describe("the previous and next conversation", () => {
  const summary = (id: string) => ({ id, title: id, model: "m", createdAt: 0, updatedAt: 0 });
  const days = [
    { day: "2026-12-01", conversations: [summary("a"), summary("b")] },
    { day: "2026-11-30", conversations: [summary("c")] },
  ];

  it("follow the list across days and stop at its ends", () => {
    expect(adjacentConversationId(days, "a", 1)).toBe("b");
    expect(adjacentConversationId(days, "b", 1)).toBe("c");
    expect(adjacentConversationId(days, "c", -1)).toBe("b");
    expect(adjacentConversationId(days, "c", 1)).toBeNull();
    expect(adjacentConversationId(days, "a", -1)).toBeNull();
  });

  it("start at an end when the shown conversation is not in the list, and find nothing in an empty list", () => {
    expect(adjacentConversationId(days, "new", 1)).toBe("a");
    expect(adjacentConversationId(days, null, -1)).toBe("c");
    expect(adjacentConversationId([], "a", 1)).toBeNull();
  });
});
