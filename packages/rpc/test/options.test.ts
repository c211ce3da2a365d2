import { afterEach, describe, expect, it } from "vitest";
import {
  createRpcPromptBackend,
  createRpcPromptClient,
  type RpcPromptBackend,
  type RpcPromptBackendOptions,
  type RpcPromptClient,
  type RpcPromptClientOptions,
} from "../src/index.js";
import { pipes } from "./support.js";

// A host's mistake in options fails at creation, naming the option, the value and what is
// allowed, instead of silently meaning "no limit" (NaN) or refusing everything (0).

let backend: RpcPromptBackend | undefined;
let client: RpcPromptClient | undefined;
afterEach(() => {
  backend?.close();
  client?.close();
  backend = undefined;
  client = undefined;
});

function createBackend(options: Partial<RpcPromptBackendOptions>) {
  const wire = pipes();
  backend = createRpcPromptBackend({
    input: wire.input,
    output: wire.output,
    sessionId: "s1",
    ...options,
  });
  return { ...wire, backend };
}

function createClient(options: Partial<RpcPromptClientOptions>) {
  const wire = pipes();
  client = createRpcPromptClient({
    input: wire.input,
    output: wire.output,
    capabilities: { prompts: "rich" },
    onPrompt: () => ({ type: "cancelled" }),
    ...options,
  });
  return { ...wire, client };
}

const BAD_COUNTS = [Number.NaN, 0, -1, 1.5, Number.POSITIVE_INFINITY];
const BAD_TIMEOUTS = [Number.NaN, 0, -1, Number.NEGATIVE_INFINITY];

describe("maxLineBytes", () => {
  it.each(BAD_COUNTS)("of %d is refused by both sides at creation, with a RangeError", (value) => {
    const expected = `\`maxLineBytes\` must be a whole number of bytes, at least 1; got ${value}`;
    expect(() => createBackend({ maxLineBytes: value })).toThrow(RangeError);
    expect(() => createBackend({ maxLineBytes: value })).toThrow(
      `createRpcPromptBackend: ${expected}`,
    );
    expect(() => createClient({ maxLineBytes: value })).toThrow(RangeError);
    expect(() => createClient({ maxLineBytes: value })).toThrow(
      `createRpcPromptClient: ${expected}`,
    );
  });

  it("that is not a number (a string from the environment) is refused with a TypeError", () => {
    const value = "65536" as unknown as number;
    expect(() => createBackend({ maxLineBytes: value })).toThrow(TypeError);
    expect(() => createClient({ maxLineBytes: value })).toThrow(
      'createRpcPromptClient: `maxLineBytes` must be a whole number of bytes, at least 1; got "65536"',
    );
  });

  it("of 1 reads a line of 1 byte and answers a line of 2 bytes as too long", async () => {
    const { remote } = createBackend({ maxLineBytes: 1 });
    remote.write("7\n");
    expect(await remote.next()).toMatchObject({
      id: null,
      error: { code: -32600, message: expect.not.stringContaining("maximum line length") },
    });
    remote.write("42\n");
    expect(await remote.next()).toMatchObject({
      id: null,
      error: {
        code: -32600,
        message: expect.stringContaining("exceeds the maximum line length of 1 bytes"),
      },
    });
  });
});

describe("timeoutMs and handshakeTimeoutMs", () => {
  it.each(BAD_TIMEOUTS)("of %d are refused at creation, with a RangeError", (value) => {
    for (const name of ["timeoutMs", "handshakeTimeoutMs"] as const) {
      expect(() => createBackend({ [name]: value })).toThrow(RangeError);
      expect(() => createBackend({ [name]: value })).toThrow(
        `createRpcPromptBackend: \`${name}\` must be a number of milliseconds greater than 0 (Infinity for no limit); got ${value}`,
      );
    }
  });

  it("that are not numbers are refused with a TypeError", () => {
    const value = "5000" as unknown as number;
    expect(() => createBackend({ timeoutMs: value })).toThrow(TypeError);
    expect(() => createBackend({ handshakeTimeoutMs: value })).toThrow(/`handshakeTimeoutMs`/);
  });

  it("accept the smallest positive value and Infinity", () => {
    expect(() => createBackend({ timeoutMs: 1, handshakeTimeoutMs: 1 })).not.toThrow();
    backend?.close();
    expect(() =>
      createBackend({
        timeoutMs: Number.POSITIVE_INFINITY,
        handshakeTimeoutMs: Number.POSITIVE_INFINITY,
      }),
    ).not.toThrow();
  });

  it("waitForClient rejects a timeoutMs of NaN instead of waiting without a limit", async () => {
    const { backend } = createBackend({ handshakeTimeoutMs: 60_000 });
    const waiting = backend.waitForClient({ timeoutMs: Number.NaN });
    backend.close();
    await expect(waiting).rejects.toThrow(RangeError);
    await expect(waiting).rejects.toThrow(
      "waitForClient: `timeoutMs` must be a number of milliseconds greater than 0 (Infinity for no limit); got NaN",
    );
  });
});

describe("maxOpenPrompts", () => {
  it.each(BAD_COUNTS)("of %d is refused at creation, with a RangeError", (value) => {
    expect(() => createClient({ maxOpenPrompts: value })).toThrow(RangeError);
    expect(() => createClient({ maxOpenPrompts: value })).toThrow(
      `createRpcPromptClient: \`maxOpenPrompts\` must be a whole number of prompts, at least 1; got ${value}`,
    );
  });
});
