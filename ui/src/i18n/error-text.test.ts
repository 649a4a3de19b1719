import { describe, expect, it } from "vitest";

import { commandErrorText, oneLine, problemText } from "./error-text";
import { STRINGS } from "./strings";

describe("words for host codes", () => {
  it("words every code in both languages, each in its own words", () => {
    for (const [code, english] of Object.entries(STRINGS.en.errorCodes)) {
      const chinese = (STRINGS.zh.errorCodes as Record<string, string>)[code];
      expect(english, code).not.toBe("");
      expect(chinese, code).toMatch(/[\u4e00-\u9fff]/);
    }
    for (const table of ["noticeSources", "problemKinds"] as const) {
      for (const [key, english] of Object.entries(STRINGS.en[table])) {
        expect((STRINGS.zh[table] as Record<string, string>)[key], `${table}.${key}`).toMatch(/[\u4e00-\u9fff]/);
        expect(english).not.toBe("");
      }
    }
  });

  it("keeps the host's detail beside the UI's words", () => {
    const worded = commandErrorText(STRINGS.zh, { kind: "storage", code: "disk_full", detail: "No space left on device" });
    expect(worded).toEqual({ text: STRINGS.zh.errorCodes.disk_full, detail: "No space left on device" });
    expect(oneLine(worded)).toBe(`${STRINGS.zh.errorCodes.disk_full} (No space left on device)`);
    expect(commandErrorText(STRINGS.en, { kind: "busy", code: "busy" })).toEqual({ text: STRINGS.en.errorCodes.busy });
  });

  it("gives a code from a newer host the generic words, keeping its detail", () => {
    const worded = commandErrorText(STRINGS.en, { kind: "internal", code: "a_code_from_the_future", detail: "what it said" });
    expect(worded).toEqual({ text: STRINGS.en.errorCodes.unexpected, detail: "what it said" });
  });

  it("words a connection problem by its kind", () => {
    const worded = problemText(STRINGS.zh, { kind: "unauthorized", message: "OpenAI rejected the API key (401)." });
    expect(worded).toEqual({ text: STRINGS.zh.problemKinds.unauthorized, detail: "OpenAI rejected the API key (401)." });
  });
});

describe("words for host identifiers", () => {
  it("names every preset and thinking level in both languages", () => {
    const presets = ["openai", "anthropic", "deepseek", "openrouter", "qwen", "ollama", "llamacpp", "custom"];
    for (const id of presets) {
      expect(STRINGS.en.presetLabels[id], id).toBeTruthy();
      expect(STRINGS.zh.presetLabels[id], id).toBeTruthy();
    }
    expect(STRINGS.zh.presetLabels["custom"]).toMatch(/[\u4e00-\u9fff]/);
    for (const level of ["off", "minimal", "low", "medium", "high", "xhigh"]) {
      expect(STRINGS.zh.thinkingLevels[level], level).toMatch(/[\u4e00-\u9fff]/);
      expect(STRINGS.en.thinkingLevels[level], level).toBeTruthy();
    }
  });
});
