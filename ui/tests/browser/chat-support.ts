// Helpers of the chat browser tests: the chat mock backend as an init script, and a driver that numbers and
// delivers envelopes to the page the way the host's Channel would.
import { fileURLToPath } from "node:url";

import { build } from "esbuild";
import type { Page } from "playwright-core";

import type { Payload } from "../../src/state/__fixtures__/builders";

export async function chatMockBackendScript(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./chat-mock-backend.ts", import.meta.url))],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error("esbuild produced no chat mock backend bundle");
  return output.text;
}

/** Delivers envelopes of a run; the mock backend numbers them per conversation, as the host does. */
export class RunDriver {
  private seq = 0;

  constructor(private readonly page: Page) {}

  /** Waits until the UI invoked `prompt` or `continue_run` and the mock accepted the run. */
  async waitForRun(): Promise<void> {
    await this.page.waitForFunction(() => window.__chatMock.hasRun());
    this.seq = 0;
  }

  async send(...payloads: Payload[]): Promise<void> {
    await this.page.evaluate((list) => {
      for (const envelope of list) window.__chatMock.send(envelope);
    }, this.envelopes(...payloads));
  }

  /** The envelopes for `payloads`, numbered in the run's sequence, for a test that delivers them itself. */
  envelopes(...payloads: Payload[]): unknown[] {
    return payloads.map((payload) => {
      this.seq += 1;
      return "event" in payload
        ? { v: 1, seq: this.seq, kind: "event", event: payload.event }
        : { v: 1, seq: this.seq, kind: "notice", notice: payload.notice };
    });
  }

  /** Delivers recorded envelopes (the mock numbers them in the conversation's sequence). */
  async sendRecorded(envelopes: readonly unknown[]): Promise<void> {
    await this.page.evaluate((list) => {
      for (const envelope of list) window.__chatMock.send(envelope);
    }, envelopes);
  }

  /** The run's end as a test step: the host has nothing to resolve (prompt returned at acceptance). */
  async finish(): Promise<void> {
    await this.page.evaluate(() => window.__chatMock.finish());
  }
}

export async function ipcCommands(page: Page): Promise<string[]> {
  return page.evaluate(() => window.__chatMock.calls.map((call) => call.cmd));
}
