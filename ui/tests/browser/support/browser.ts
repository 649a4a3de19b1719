// Debian's Chromium, headless, driven by playwright-core (no downloaded browser), with a fresh profile.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { chromium, type BrowserContext } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";

export interface Browser {
  context: BrowserContext;
  close: () => Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  const userDataDir = await mkdtemp(join(tmpdir(), "pi-desktop-ui-test-"));
  // launchPersistentContext is how playwright takes an explicit --user-data-dir; `headless` adds --headless.
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
