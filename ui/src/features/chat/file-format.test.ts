import { describe, expect, it } from "vitest";

import { formatModified, formatSize } from "./file-format";

describe("file sizes", () => {
  it.each([
    [0, "0 B"],
    [812, "812 B"],
    [1536, "1.5 KB"],
    [2_097_152, "2.0 MB"],
    [15 * 1024 * 1024, "15 MB"],
    [3 * 1024 ** 4, "3.0 TB"],
  ])("%d bytes read %s", (bytes, text) => {
    expect(formatSize(bytes)).toBe(text);
  });

  it("shows nothing for a nonsensical size", () => {
    expect(formatSize(-1)).toBe("");
    expect(formatSize(Number.NaN)).toBe("");
  });
});

describe("modification times", () => {
  it("are empty when unknown and carry the year otherwise", () => {
    expect(formatModified(undefined, "en")).toBe("");
    expect(formatModified(Date.UTC(2024, 4, 1, 12), "en")).toContain("2024");
    expect(formatModified(Date.UTC(2024, 4, 1, 12), "zh")).toContain("2024");
  });
});
