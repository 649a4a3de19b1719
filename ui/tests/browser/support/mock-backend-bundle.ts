// Bundles ./mock-backend.ts into one classic script, so it can run as an init script before the app.
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

export async function mockBackendScript(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./mock-backend.ts", import.meta.url))],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  const output = result.outputFiles[0];
  if (output === undefined) {
    throw new Error("esbuild produced no mock backend bundle");
  }
  return output.text;
}
