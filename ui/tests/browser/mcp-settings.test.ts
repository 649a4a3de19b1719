// "Tools & servers" in the built UI (headless Chromium, the chat mock backend plus ./mcp-mock-backend.ts for the
// MCP commands), in English and Chinese: nothing configured; a server in each state (a failed one with its reason
// and last output, a restart with its attempt); a state pushed by the host shows without asking; the add form
// (values go to the keychain, never shown again) → starting → ready with its tools; the import list → disabled
// servers with their command line; the remove confirmation and the import panel from the keyboard (focus kept
// inside, Esc closes only them, focus back on the button that opened them). Screenshots go to artifacts/.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";
import type { Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { chatMockBackendScript } from "./chat-support";
import { launchChromium, type Browser } from "./support/browser";
import { DIST_DIR, serveDist, type StaticServer } from "./support/static-server";
import { collectProblems } from "./support/page-problems";

const ARTIFACTS = resolve(DIST_DIR, "..", "..", "artifacts");

let server: StaticServer;
let browser: Browser;
let page: Page;
let problems: string[];

async function mcpMockBackendScript(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./mcp-mock-backend.ts", import.meta.url))],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error("esbuild produced no MCP mock backend bundle");
  return output.text;
}

beforeAll(async () => {
  if (!existsSync(join(DIST_DIR, "index.html"))) {
    throw new Error(`${DIST_DIR}/index.html is missing: run \`npm run build\` in ui/ first`);
  }
  await mkdir(ARTIFACTS, { recursive: true });
  server = await serveDist();
  browser = await launchChromium();
  // One script, so the MCP mock surely wraps the chat mock's IPC.
  await browser.context.addInitScript({ content: `${await chatMockBackendScript()}\n${await mcpMockBackendScript()}` });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

beforeEach(async () => {
  problems = [];
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1100, height: 1500 });
  collectProblems(page, problems);
});

afterEach(async () => {
  expect(problems).toEqual([]);
  await page.close();
});

type Language = "en" | "zh";

/**
 * Loads the app with `view` as the host's servers and `language` as the UI's (the mock reads them from the tab's
 * session storage as it starts), and opens the settings there.
 */
async function openSettings(language: Language, view: unknown, setup: Record<string, unknown> = {}): Promise<Locator> {
  await page.goto(server.url);
  await page.evaluate((stored) => sessionStorage.setItem("mcpMock", stored), JSON.stringify({ ...setup, language, view }));
  await page.reload();
  await page.getByTestId("composer-input").waitFor();
  await page.getByTestId("settings-button").click();
  const section = page.getByTestId("mcp-settings");
  await section.waitFor();
  await section.scrollIntoViewIfNeeded();
  return section;
}

const CONFIG = "/home/ada/.config/pi-desktop/mcp.json";
const EVERYTHING = "/usr/bin/node /home/ada/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio";

function serverView(name: string, patch: Record<string, unknown>) {
  return {
    name,
    status: { state: "ready" },
    launch: `npx -y @example/${name}`,
    transport: { type: "stdio", command: "npx", args: ["-y", `@example/${name}`], env: [] },
    timeoutSeconds: 60,
    totalTimeoutSeconds: 600,
    tools: [],
    stderrTail: [],
    alwaysAllowed: [],
    alwaysAllowServer: false,
    ...patch,
  };
}

const EVERY_STATE = {
  configFile: CONFIG,
  problems: ['MCP server "half", field "args": invalid type: string "--port 3000", expected a sequence'],
  servers: [
    serverView("everything", {
      launch: EVERYTHING,
      tools: [
        { name: "get-sum", description: "Returns the sum of two numbers", readOnlyClaim: true, destructiveClaim: false, enabled: true },
        { name: "get-env", description: "Returns all environment variables", readOnlyClaim: true, destructiveClaim: false, enabled: false },
        { name: "gzip-file-as-resource", description: "Compresses a file", readOnlyClaim: false, destructiveClaim: true, enabled: true },
      ],
      alwaysAllowed: ["get-sum"],
    }),
    serverView("notes", { status: { state: "starting" } }),
    serverView("github", {
      status: { state: "disabled" },
      launch: "npx -y @modelcontextprotocol/server-github",
      transport: { type: "stdio", command: "npx", args: [], env: [{ name: "GITHUB_TOKEN", inKeychain: true }] },
    }),
    serverView("files", {
      status: {
        state: "failed",
        reason: 'MCP server "files" stopped: exited with status 1 — its last output: Error: EACCES /home/ada/Private',
      },
      launch: "npx -y @modelcontextprotocol/server-filesystem /home/ada/Private",
      stderrTail: ["Secure MCP Filesystem Server starting", "Error: EACCES: permission denied, scandir '/home/ada/Private'"],
    }),
    serverView("flaky", {
      status: { state: "restarting", attempt: 2 },
      stderrTail: ["Listening on stdio", "panic: lost connection to the database"],
    }),
  ],
};

const states = (section: Locator) =>
  section.locator('[data-testid="mcp-server"]').evaluateAll((servers) =>
    servers.map((element) => [element.getAttribute("data-name"), element.getAttribute("data-state")]),
  );

describe.each<Language>(["en", "zh"])("Tools & servers (%s)", (language) => {
  it("with nothing configured says where mcp.json is and what is not supported", async () => {
    const section = await openSettings(language, { configFile: CONFIG, servers: [], problems: [] });

    await expect(section.getByTestId("mcp-none").textContent()).resolves.toContain(CONFIG);
    await expect(section.getByTestId("mcp-unsupported").textContent()).resolves.toContain(
      language === "en" ? "sampling, elicitation and roots" : "sampling",
    );
    await section.screenshot({ path: join(ARTIFACTS, `mcp-settings-empty-${language}.png`) });
  });

  it("shows a server in each state, and a state the host pushes without being asked", async () => {
    const section = await openSettings(language, EVERY_STATE, {
      readyTools: [{ name: "search-notes", description: "Finds notes", readOnlyClaim: true, destructiveClaim: false, enabled: true }],
    });

    await expect(states(section)).resolves.toEqual([
      ["everything", "ready"],
      ["notes", "starting"],
      ["github", "disabled"],
      ["files", "failed"],
      ["flaky", "restarting"],
    ]);
    const flaky = section.locator('[data-testid="mcp-server"][data-name="flaky"]');
    await expect(flaky.getByTestId("mcp-state").textContent()).resolves.toBe(
      language === "en" ? "Restarting (2)" : "正在重启（第 2 次）",
    );
    const files = section.locator('[data-testid="mcp-server"][data-name="files"]');
    await expect(files.getByTestId("mcp-stderr").textContent()).resolves.toContain("EACCES");
    await expect(section.locator(".mcp-problem").first().textContent()).resolves.toContain('field "args"');
    await expect(
      section.locator('[data-name="everything"] [data-testid="mcp-tool"][data-name="get-env"] [data-testid="mcp-tool-toggle"]').isChecked(),
    ).resolves.toBe(false);
    await section.screenshot({ path: join(ARTIFACTS, `mcp-settings-states-${language}.png`) });

    // The host pushes: "notes" is ready now; the section shows it without another command.
    const before = await page.evaluate(() => window.__mcpMock.calls.length);
    await page.evaluate(() => {
      const notes = window.__mcpMock.view.servers.find((candidate) => candidate.name === "notes");
      if (notes !== undefined) notes.status = { state: "ready" };
      window.__mcpMock.push();
    });
    await section.locator('[data-testid="mcp-server"][data-name="notes"][data-state="ready"]').waitFor();
    await expect(page.evaluate(() => window.__mcpMock.calls.length)).resolves.toBe(before);
  });

  it("adds a server through the form: starting, then ready with its tools; a value is never shown again", async () => {
    const section = await openSettings(
      language,
      { configFile: CONFIG, servers: [], problems: [] },
      {
        readyTools: [
          { name: "echo", description: "Echoes back the input", readOnlyClaim: true, destructiveClaim: false, enabled: true },
          { name: "get-sum", description: "Returns the sum of two numbers", readOnlyClaim: true, destructiveClaim: false, enabled: true },
        ],
      },
    );
    await section.getByTestId("mcp-add").click();
    const form = section.getByTestId("mcp-server-form");
    await form.getByTestId("mcp-form-name").fill("everything");
    await form.getByTestId("mcp-form-command").fill("/usr/bin/node");
    await form.getByTestId("mcp-form-args").fill("/home/ada/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js\nstdio");
    await form.getByTestId("mcp-form-add-value").click();
    await form.getByTestId("mcp-form-value-name").fill("API_KEY");
    await form.getByTestId("mcp-form-value-value").fill("s3cret-value");
    await section.screenshot({ path: join(ARTIFACTS, `mcp-settings-form-${language}.png`) });

    await form.getByTestId("mcp-form-save").click();

    await section.locator('[data-testid="mcp-server"][data-name="everything"][data-state="ready"]').waitFor();
    await section.locator('[data-name="everything"] [data-testid="mcp-tool"][data-name="get-sum"]').waitFor();
    await expect(section.getByTestId("mcp-server-form").count()).resolves.toBe(0);
    const saved = await page.evaluate(() => window.__mcpMock.calls.find((call) => call.cmd === "save_mcp_server")?.args);
    expect(saved).toEqual({
      server: {
        name: "everything",
        disabled: false,
        transport: {
          type: "stdio",
          command: "/usr/bin/node",
          args: ["/home/ada/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js", "stdio"],
          env: [{ name: "API_KEY", value: "s3cret-value" }],
        },
      },
    });
    await section.getByTestId("mcp-edit").click();
    await expect(section.getByTestId("mcp-form-value-value").inputValue()).resolves.toBe("");
    await expect(section.getByTestId("mcp-form-value-value").getAttribute("placeholder")).resolves.toBe(
      language === "en" ? "kept in the keychain" : "保存在钥匙串中",
    );
    await expect(page.content()).resolves.not.toContain("s3cret-value");
  });

  it("imports the chosen servers of Claude Desktop and Cursor, which arrive disabled with their command line", async () => {
    const section = await openSettings(
      language,
      { configFile: CONFIG, servers: [serverView("github", {})], problems: [] },
      {
        candidates: {
          files: [
            { source: "claude_desktop", path: "/home/ada/.config/Claude/claude_desktop_config.json", found: true },
            { source: "cursor", path: "/home/ada/.cursor/mcp.json", found: true },
          ],
          candidates: [
            {
              source: "claude_desktop",
              name: "filesystem",
              launch: "npx -y @modelcontextprotocol/server-filesystem '/home/ada/My Documents'",
              problems: [],
              nameTaken: false,
            },
            { source: "claude_desktop", name: "github", launch: "npx -y @modelcontextprotocol/server-github", problems: [], nameTaken: true },
            { source: "cursor", name: "remote", launch: "https://mcp.example.com/mcp", problems: [], nameTaken: false },
            {
              source: "cursor",
              name: "broken",
              problems: ['MCP server "broken", field "args": invalid type: string "x", expected a sequence'],
              nameTaken: false,
            },
          ],
        },
      },
    );
    await section.getByTestId("mcp-import").click();
    const panel = section.getByTestId("mcp-import-panel");
    await panel.getByTestId("mcp-import-candidate").first().waitFor();
    await panel.locator('[data-testid="mcp-import-candidate"][data-name="filesystem"] [data-testid="mcp-import-choose"]').check();
    await panel.locator('[data-testid="mcp-import-candidate"][data-name="remote"] [data-testid="mcp-import-choose"]').check();
    await expect(
      panel.locator('[data-testid="mcp-import-candidate"][data-name="github"] [data-testid="mcp-import-choose"]').isDisabled(),
    ).resolves.toBe(true);
    await section.screenshot({ path: join(ARTIFACTS, `mcp-settings-import-${language}.png`) });

    await panel.getByTestId("mcp-import-confirm").click();

    await expect(states(section)).resolves.toEqual([
      ["github", "ready"],
      ["filesystem", "disabled"],
      ["remote", "disabled"],
    ]);
    const imported = section.locator('[data-testid="mcp-server"][data-name="filesystem"]');
    await expect(imported.getByTestId("mcp-launch").textContent()).resolves.toBe(
      "npx -y @modelcontextprotocol/server-filesystem '/home/ada/My Documents'",
    );
    await expect(imported.getByTestId("mcp-enable").isChecked()).resolves.toBe(false);
    await section.screenshot({ path: join(ARTIFACTS, `mcp-settings-imported-${language}.png`) });

    await imported.getByTestId("mcp-enable").check();
    await section.locator('[data-testid="mcp-server"][data-name="filesystem"][data-state="ready"]').waitFor();
  });
});

describe("Tools & servers from the keyboard", () => {
  const focusedTestId = () => page.evaluate(() => document.activeElement?.getAttribute("data-testid") ?? document.activeElement?.tagName ?? null);
  const focusInside = (selector: string) =>
    page.evaluate((within) => document.querySelector(within)?.contains(document.activeElement) ?? false, selector);

  it("the remove confirmation and the import panel keep the focus inside, Esc closes only them, and the focus comes back", async () => {
    const section = await openSettings("en", { configFile: CONFIG, servers: [serverView("notes", {})], problems: [] });

    const card = section.locator('[data-testid="mcp-server"][data-name="notes"]');
    await card.getByTestId("mcp-remove").focus();
    await page.keyboard.press("Enter");
    const confirmation = card.locator(".mcp-confirm");
    await confirmation.waitFor();
    await expect(focusInside('[data-name="notes"] .mcp-confirm')).resolves.toBe(true);
    for (let step = 0; step < 3; step += 1) {
      await page.keyboard.press("Tab");
      await expect(focusInside('[data-name="notes"] .mcp-confirm')).resolves.toBe(true);
    }
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => document.querySelector(".mcp-confirm") === null);
    await expect(page.getByTestId("settings-panel").count()).resolves.toBe(1);
    await expect(focusedTestId()).resolves.toBe("mcp-remove");

    await section.getByTestId("mcp-import").focus();
    await page.keyboard.press("Enter");
    await section.getByTestId("mcp-import-panel").waitFor();
    await expect(focusInside('[data-testid="mcp-import-panel"]')).resolves.toBe(true);
    for (let step = 0; step < 4; step += 1) {
      await page.keyboard.press("Shift+Tab");
      await expect(focusInside('[data-testid="mcp-import-panel"]')).resolves.toBe(true);
    }
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => document.querySelector('[data-testid="mcp-import-panel"]') === null);
    await expect(page.getByTestId("settings-panel").count()).resolves.toBe(1);
    await expect(focusedTestId()).resolves.toBe("mcp-import");
    // Back in the settings' own trap: Esc now closes Settings.
    await page.keyboard.press("Escape");
    await page.waitForFunction(() => document.querySelector('[data-testid="settings-panel"]') === null);
  });
});
