// @vitest-environment jsdom
// The inspector panel against a mocked ipc/inspector: each run with its exit as data-exit, its turns and tool
// calls, Replay only for stored runs, the run in progress as "running", and no runs at all.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { ConversationInspection } from "../../ipc/inspector";

const ipc = vi.hoisted(() => ({
  inspectConversation: vi.fn(),
  runEvents: vi.fn(),
  exportRunLog: vi.fn(),
  runReplay: vi.fn(),
}));
vi.mock("../../ipc/inspector", () => ipc);

import { InspectorPanel } from "./InspectorPanel";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let container: HTMLDivElement;
let root: Root;

beforeEach(() => {
  for (const mock of Object.values(ipc)) mock.mockReset();
  container = document.createElement("div");
  document.body.append(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

const inspection: ConversationInspection = {
  capBytes: 16 * 1024 * 1024,
  runs: [
    {
      logId: 4,
      startedAt: 1_796_040_000_000,
      bytes: 900,
      rawBytes: 4000,
      summary: {
        exit: "done",
        startedAtMs: 1_796_040_000_000,
        agentEndMs: 2100,
        idleMs: 2130,
        turns: [
          {
            index: 1,
            startedMs: 1,
            durationMs: 900,
            firstTokenMs: 300,
            injected: [{ text: "Which PDFs are in my Downloads?", isPrompt: true }],
            stopReason: "toolUse",
            model: "gpt-4o",
            usage: { input: 120, output: 20, cacheRead: 0, cacheWrite: 0, cost: 0.0012 },
            tokensPerSecond: 33.3,
            toolCalls: [
              {
                id: "call_1",
                name: "list_download_files",
                arguments: { extensions: ["pdf"] },
                startedMs: 910,
                durationMs: 12,
                isError: false,
                terminate: false,
                approval: "allowed",
              },
            ],
          },
          { index: 2, injected: [], stopReason: "stop", toolCalls: [] },
        ],
      },
    },
    { startedAt: 1_796_040_100_000, bytes: 0, rawBytes: 0, summary: { turns: [{ index: 1, injected: [], toolCalls: [] }] } },
  ],
};

async function render(view: ConversationInspection, onReplay = vi.fn()) {
  ipc.inspectConversation.mockResolvedValue(view);
  await act(async () => {
    root.render(
      <InspectorPanel
        language="en"
        conversationId="c1"
        refreshKey="1"
        replayError={null}
        onReplay={onReplay}
        onClose={() => undefined}
      />,
    );
    await Promise.resolve();
  });
  return onReplay;
}

describe("the loop inspector", () => {
  it("lists each run with its exit, turns and tool calls, and replays only stored runs", async () => {
    const onReplay = await render(inspection);

    const runs = [...container.querySelectorAll('[data-testid="inspector-run"]')];
    expect(runs.map((run) => run.getAttribute("data-exit"))).toEqual(["done", "running"]);
    expect(runs[0]?.querySelectorAll('[data-testid="inspector-turn"]')).toHaveLength(2);
    expect(runs[0]?.textContent).toContain("list_download_files");
    expect(runs[0]?.textContent).toContain("Which PDFs are in my Downloads?");
    expect(runs[0]?.textContent).toContain("$0.0012");
    expect(runs[1]?.querySelector('[data-testid="replay-button"]')).toBeNull();

    const replay = runs[0]?.querySelector<HTMLButtonElement>('[data-testid="replay-button"]');
    act(() => replay?.click());
    expect(onReplay).toHaveBeenCalledWith(4);
    expect(ipc.inspectConversation).toHaveBeenCalledWith("c1");
  });

  it("says so when the conversation has no runs yet", async () => {
    await render({ runs: [], capBytes: 1 });
    expect(container.querySelector('[data-testid="inspector-empty"]')).not.toBeNull();
  });
});
