// The approval question of an MCP tool call in the built UI (headless Chromium, the mock backend driven
// envelope by envelope): the card asks inline with the full arguments, each answer goes to resolve_approval, and
// a question withdrawn by Stop leaves the card "stopped, not run". Screenshots go to artifacts/.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";

import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { assistantMessage, event, notice, runEnd, runStart } from "../../src/state/__fixtures__/builders";
import { RunDriver, chatMockBackendScript } from "./chat-support";
import { launchChromium, type Browser } from "./support/browser";
import { DIST_DIR, serveDist, type StaticServer } from "./support/static-server";
import { collectProblems } from "./support/page-problems";

const ARTIFACTS = resolve(DIST_DIR, "..", "..", "artifacts");

let server: StaticServer;
let browser: Browser;
let page: Page;
let run: RunDriver;
let problems: string[];

beforeAll(async () => {
  if (!existsSync(join(DIST_DIR, "index.html"))) {
    throw new Error(`${DIST_DIR}/index.html is missing: run \`npm run build\` in ui/ first`);
  }
  await mkdir(ARTIFACTS, { recursive: true });
  server = await serveDist();
  browser = await launchChromium();
  await browser.context.addInitScript({ content: await chatMockBackendScript() });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

beforeEach(async () => {
  problems = [];
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1100, height: 760 });
  collectProblems(page, problems);
  await page.goto(server.url);
  await page.getByTestId("composer-input").waitFor();
  run = new RunDriver(page);
});

afterEach(async () => {
  expect(problems).toEqual([]);
  await page.close();
});

const ARGUMENTS = { path: "notes/today.md", content: "Buy milk\nCall Ada" };
const CALL = { type: "toolCall" as const, id: "call_w", name: "files__write_file", arguments: ARGUMENTS };

/** Sends a prompt whose answer calls files__write_file, and the host's question about that call. */
async function askAboutWriting(destructive: boolean): Promise<void> {
  await page.getByTestId("composer-input").fill("Save my list");
  await page.getByTestId("composer-input").press("Enter");
  await run.waitForRun();
  await run.send(
    ...runStart("Save my list"),
    event({ type: "message_start", message: assistantMessage([CALL], "toolUse") }),
    event({ type: "message_end", message: assistantMessage([CALL], "toolUse") }),
    event({ type: "tool_execution_start", toolCallId: "call_w", toolName: "files__write_file", args: ARGUMENTS }),
    notice({
      type: "approval_requested",
      requestId: 7,
      toolCallId: "call_w",
      server: "files",
      tool: "write_file",
      arguments: ARGUMENTS,
      readOnlyClaim: false,
      destructiveClaim: destructive,
    }),
  );
  await page.locator('[data-testid="tool-card"][data-state="awaiting_approval"]').waitFor();
}

async function resolveCalls(): Promise<unknown[]> {
  return page.evaluate(() =>
    window.__chatMock.calls.filter((call) => call.cmd === "resolve_approval").map((call) => call.args),
  );
}

describe("tool approval", () => {
  it("asks inside the card with the full arguments; Allow once answers and the call then runs", async () => {
    await askAboutWriting(false);

    const prompt = page.getByTestId("approval-prompt");
    await expect(prompt.getByTestId("approval-arguments").textContent()).resolves.toBe(
      JSON.stringify(ARGUMENTS, null, 2),
    );
    for (const id of ["approve-once", "approve-conversation", "approve-tool-always", "approve-server-always", "deny", "deny-stop"]) {
      await expect(prompt.getByTestId(id).isEnabled()).resolves.toBe(true);
    }
    await expect(page.getByTestId("send-button").isDisabled()).resolves.toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, "approval-prompt-light.png") });

    await prompt.getByTestId("approve-once").click();
    await page.waitForFunction(() => window.__chatMock.calls.some((call) => call.cmd === "resolve_approval"));
    expect(await resolveCalls()).toEqual([{ conversationId: "c-1", requestId: 7, decision: { decision: "allow_once" } }]);
    await expect(prompt.getByTestId("deny").isDisabled()).resolves.toBe(true);

    await run.send(
      notice({ type: "approval_resolved", requestId: 7, toolCallId: "call_w", outcome: "allowed" }),
      event({
        type: "tool_execution_end",
        toolCallId: "call_w",
        toolName: "files__write_file",
        result: { content: [{ type: "text", text: "Wrote notes/today.md" }], details: {} },
        isError: false,
      }),
      ...runEnd(),
    );
    await page.locator('[data-testid="tool-card"][data-state="done"]').waitFor();
    await expect(page.getByTestId("approval-prompt").count()).resolves.toBe(0);
  });

  it("Deny sends the note; a destructive tool is not offered for its whole server", async () => {
    await askAboutWriting(true);

    await expect(page.getByTestId("approve-server-always").count()).resolves.toBe(0);
    await page.getByTestId("deny-note").fill("use the Documents folder");
    await page.getByTestId("deny").click();
    await page.waitForFunction(() => window.__chatMock.calls.some((call) => call.cmd === "resolve_approval"));

    expect(await resolveCalls()).toEqual([
      { conversationId: "c-1", requestId: 7, decision: { decision: "deny", note: "use the Documents folder" } },
    ]);
  });

  it("a question Stop withdrew leaves the card stopped, not run", async () => {
    await askAboutWriting(false);
    await page.getByTestId("stop-button").click();
    await run.send(
      notice({ type: "approval_resolved", requestId: 7, toolCallId: "call_w", outcome: "withdrawn" }),
      event({
        type: "tool_execution_end",
        toolCallId: "call_w",
        toolName: "files__write_file",
        result: { content: [{ type: "text", text: "Operation aborted" }], details: {} },
        isError: true,
      }),
      ...runEnd(),
    );

    const card = page.locator('[data-testid="tool-card"][data-state="stopped"]');
    await card.waitFor();
    await expect(card.locator(".tool-state").textContent()).resolves.toBe("Stopped, not run");
    await expect(page.getByTestId("approval-prompt").count()).resolves.toBe(0);
    await expect(resolveCalls()).resolves.toEqual([]);
  });
});

describe("Tools & servers in the settings", () => {
  it("lists each server with its state, command line and tools, a failed one with its reason and output", async () => {
    await page.evaluate(() => {
      window.__chatMock.mcpServers = {
        configFile: "/home/ada/.config/pi-desktop/mcp.json",
        servers: [
          {
            name: "everything",
            status: { state: "ready" },
            launch: "/usr/bin/node /opt/mcp/server-everything/dist/index.js stdio",
            tools: [
              { name: "get-sum", description: "Returns the sum of two numbers", readOnlyClaim: true, destructiveClaim: false },
              { name: "get-env", description: "Returns the environment", readOnlyClaim: true, destructiveClaim: false },
            ],
            stderrTail: [],
            alwaysAllowed: ["get-sum"],
            alwaysAllowServer: false,
          },
          {
            name: "files",
            status: { state: "failed", reason: 'MCP server "files": npx not found: install Node.js, or give the absolute path of the program' },
            launch: "npx -y @modelcontextprotocol/server-filesystem /home/ada/Documents",
            tools: [],
            stderrTail: [],
            alwaysAllowed: [],
            alwaysAllowServer: false,
          },
        ],
        problems: [],
      };
    });
    await page.getByTestId("settings-button").click();
    const section = page.getByTestId("mcp-settings");
    await section.scrollIntoViewIfNeeded();

    await expect(section.locator('[data-testid="mcp-server"][data-name="everything"]').getAttribute("data-state")).resolves.toBe("ready");
    await expect(section.locator('[data-testid="mcp-server"][data-name="files"]').getAttribute("data-state")).resolves.toBe("failed");
    await expect(section.locator('[data-name="files"]').textContent()).resolves.toContain("npx not found");
    await expect(section.locator('[data-name="everything"] [data-testid="mcp-grant"]').getAttribute("data-tool")).resolves.toBe("get-sum");
    await page.screenshot({ path: join(ARTIFACTS, "mcp-settings-light.png") });
  });
});
