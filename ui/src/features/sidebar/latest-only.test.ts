import { describe, expect, it } from "vitest";

import { latestOnly } from "./latest-only";

function deferred() {
  let resolve = () => {};
  let reject = (_error: unknown) => {};
  const promise = new Promise<void>((onResolve, onReject) => {
    resolve = onResolve;
    reject = onReject;
  });
  return { promise, resolve, reject };
}

describe("latestOnly", () => {
  it("runs one job at a time, and only the newest of those asked for meanwhile", async () => {
    const started: string[] = [];
    const pending: Array<ReturnType<typeof deferred>> = [];
    const request = latestOnly((query: string) => {
      started.push(query);
      const job = deferred();
      pending.push(job);
      return job.promise;
    });

    request("i");
    request("in");
    request("inv");
    expect(started).toEqual(["i"]);

    pending[0]?.resolve();
    await Promise.resolve();
    await Promise.resolve();
    expect(started).toEqual(["i", "inv"]);

    // A failed job frees the way just the same.
    request("invo");
    pending[1]?.reject(new Error("store unavailable"));
    await Promise.resolve();
    await Promise.resolve();
    expect(started).toEqual(["i", "inv", "invo"]);

    pending[2]?.resolve();
    await Promise.resolve();
    await Promise.resolve();
    request("invoice");
    expect(started).toEqual(["i", "inv", "invo", "invoice"]);
  });
});
