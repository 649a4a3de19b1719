// What a page under test must never print: uncaught errors, and console errors or warnings. Each test file collects
// them per page and expects none after each test.
import type { Page } from "playwright-core";

/** Adds every page error, console error and console warning of `page` to `problems`, as it happens. */
export function collectProblems(page: Page, problems: string[]): void {
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(`console: ${message.text()}`);
  });
}
