import { describe, expect, it } from "vitest";

import { STRINGS, resolveLanguage } from "./strings";

describe("UI language", () => {
  it("follows the system when the setting is auto", () => {
    expect(resolveLanguage("auto", ["zh-CN", "en-US"])).toBe("zh");
    expect(resolveLanguage("auto", ["en-GB"])).toBe("en");
    expect(resolveLanguage("auto", ["fr-FR", "zh-TW"])).toBe("zh");
    expect(resolveLanguage("auto", ["fr-FR"])).toBe("en");
    expect(resolveLanguage("auto", [])).toBe("en");
  });

  it("uses the language the settings pick", () => {
    expect(resolveLanguage("zh", ["en-US"])).toBe("zh");
    expect(resolveLanguage("en", ["zh-CN"])).toBe("en");
  });

  it("has every English text in Chinese too", () => {
    const keys = (value: object): string[] =>
      Object.entries(value).flatMap(([key, child]) =>
        typeof child === "object" && child !== null ? keys(child).map((sub) => `${key}.${sub}`) : [key],
      );
    expect(keys(STRINGS.zh).sort()).toEqual(keys(STRINGS.en).sort());
  });
});
