// Syntax highlighting for closed code fences: highlight.js core with a handful of languages, so the bundle
// stays small. Unknown languages render as plain escaped text.
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const LANGUAGES = { bash, css, diff, javascript, json, markdown, python, rust, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) {
  hljs.registerLanguage(name, language);
}
// Common fence names that are aliases of a registered language.
hljs.registerAliases(["sh", "shell", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["rs"], { languageName: "rust" });

/** Highlighted HTML (escaped text in hljs spans) for a known language, or null. */
export function highlightCode(code: string, language: string): string | null {
  if (language === "" || hljs.getLanguage(language) === undefined) return null;
  return hljs.highlight(code, { language, ignoreIllegals: true }).value;
}
