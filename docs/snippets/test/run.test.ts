import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProvider, startFakeProvider } from "./fake-provider.js";
import { runSnippet } from "./run-snippet.js";
import { RUNS } from "./snippet-runs.js";

let provider: FakeProvider;
beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider.close());

const SCRIPTS = Object.entries(RUNS).flatMap(([file, check]) =>
  typeof check === "string" ? [] : [[file, check] as const],
);

describe.each(SCRIPTS)("%s", (file, check) => {
  it("runs as written and does what the docs say", async () => {
    const run = await runSnippet(file, provider.env);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    check(run);
  });
});
