import { spawn } from "node:child_process";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createRpcPromptBackend, type RpcPromptBackend } from "../src/index.js";
import { MAX_UNSENT_BYTES } from "../src/internal/peer.js";
import { REPO_ROOT, STARTUP_MS } from "./child-client.js";

// A client that floods: the host must neither stay alive because of it nor buffer without bound.

const FLOOD_HOST = fileURLToPath(new URL("./fixtures/flood-host.ts", import.meta.url));

/** How long the host may take to exit after its turn (it takes about a second). */
const EXIT_MS = 15_000;

describe("a client that floods responses for unknown ids", () => {
  it("does not keep the host alive after close()", {
    timeout: STARTUP_MS + EXIT_MS + 10_000,
  }, async () => {
    const host = spawn(
      process.execPath,
      ["--conditions=@jp/source", "--import", "tsx", FLOOD_HOST, "200000"],
      { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    host.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    host.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => host.once("exit", resolve));
    try {
      // The turn completes first; then the host closes and should exit on its own.
      await expect
        .poll(() => stdout.includes("\n"), { timeout: STARTUP_MS, interval: 50 })
        .toBe(true);
      expect(JSON.parse(stdout)).toMatchObject({ content: "answered: true" });
      const deadline = new Promise<"still running">((resolve) =>
        setTimeout(() => resolve("still running"), EXIT_MS),
      );
      expect(await Promise.race([exited, deadline]), stderr).toBe(0);
    } finally {
      host.kill("SIGKILL");
    }
  });
});

describe("a client that floods and reads nothing back", () => {
  let backend: RpcPromptBackend | undefined;
  afterEach(() => backend?.close());

  it("is no longer read while more than MAX_UNSENT_BYTES of replies wait, then is read to the end", {
    timeout: 30_000,
  }, async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let reports = 0;
    let mostUnsent = 0;
    const write = output.write.bind(output) as (chunk: string) => boolean;
    output.write = ((chunk: string) => {
      const accepted = write(chunk);
      mostUnsent = Math.max(mostUnsent, output.writableLength);
      return accepted;
    }) as typeof output.write;
    backend = createRpcPromptBackend({
      input,
      output,
      sessionId: "s1",
      onProtocolError: () => {
        reports += 1;
      },
    });
    // 50,000 lines that are not JSON, each answered with -32700, in pipe-sized chunks.
    const lines = 50_000;
    const chunk = "this is not json\n".repeat(1000);
    for (let i = 0; i < lines / 1000; i++) input.write(chunk);
    await expect.poll(() => output.writableLength > MAX_UNSENT_BYTES).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // The backend stopped reading: most lines wait in the input, not as replies in memory.
    expect(reports).toBeLessThan(lines / 2);
    output.resume();
    await expect.poll(() => reports, { timeout: 20_000 }).toBe(lines);
    // One pipe-sized chunk of replies past the limit, at most.
    expect(mostUnsent).toBeLessThan(MAX_UNSENT_BYTES + 200_000);
  });
});
