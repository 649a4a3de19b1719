// axe-core in the page under test: its script is evaluated through the driver (the app's CSP allows no inline
// script, and a test must not loosen it), then `axe.run` checks the whole document.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

import type { Page } from "playwright-core";

const require = createRequire(import.meta.url);
let source: Promise<string> | null = null;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** The serious and critical violations axe finds in the page as it is now. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  source ??= readFile(require.resolve("axe-core/axe.min.js"), "utf8");
  const script = await source;
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(script);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<AxeResults> } }).axe;
    interface AxeResults {
      violations: { id: string; impact?: string | null; help: string; nodes: { target: unknown[] }[] }[];
    }
    const results = await axe.run(document, { resultTypes: ["violations"] });
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? null,
      help: violation.help,
      targets: violation.nodes.slice(0, 6).map((node) => node.target.map(String).join(" ")),
    }));
  });
  return violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
}
