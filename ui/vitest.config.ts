import { defineConfig } from "vitest/config";

// Unit tests: pure modules (reducer, selectors, ipc mapping) next to the code, run in Node.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    environment: "node",
  },
});
