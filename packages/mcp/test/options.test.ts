// A host's mistake in numeric options fails when the function is called, naming the function,
// the option, the value and what is allowed, instead of silently meaning "no limit" (NaN) or
// refusing everything (0); connectMcpServer rejects before it starts the transport.
import type { Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { connectMcpServer, createMcpToolServer, type McpServerOptions } from "../src/index.js";

/** What `fn` throws, or `undefined`. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** A transport that counts its starts and fails each one, as an unreachable server does. */
function unreachable(): Transport & { starts: number } {
  return {
    starts: 0,
    async start() {
      this.starts += 1;
      throw new Error("no server here");
    },
    async send() {},
    async close() {},
  };
}

/** The outcome of `connectMcpServer` with `options`: its rejection, or its result's error kind. */
async function connectWith(options: Partial<McpServerOptions>) {
  const transport = unreachable();
  try {
    const result = await connectMcpServer({ name: "s", transport, ...options });
    return { kind: result.isErr() ? result.error.kind : "connected", starts: transport.starts };
  } catch (error) {
    return { error, starts: transport.starts };
  }
}

const COUNTS = {
  maxTools: "tools",
  maxRounds: "rounds",
  maxRequestStateBytes: "bytes",
  maxPendingElicitations: "elicitations",
  maxResultLength: "characters",
} as const;

const TIMEOUTS = ["serverTimeoutMs", "pageTimeoutMs"] as const;

const TIMEOUT_ALLOWED =
  "a number of milliseconds greater than 0, at most 2147483647 (about 24.8 days)";

describe.each(Object.entries(COUNTS))("connectMcpServer's %s", (name, unit) => {
  const allowed = `a whole number of ${unit}, at least 1`;

  it.each([
    ["0", 0],
    ["-1", -1],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["1.5", 1.5],
  ])("of %s rejects with a RangeError before the transport starts", async (shown, value) => {
    const outcome = await connectWith({ [name]: value });
    expect(outcome.starts).toBe(0);
    expect(outcome.error).toBeInstanceOf(RangeError);
    expect((outcome.error as Error).message).toBe(
      `connectMcpServer: \`${name}\` must be ${allowed}; got ${shown}`,
    );
  });

  it('of "3" (a string, as read from the environment) rejects with a TypeError', async () => {
    const outcome = await connectWith({ [name]: "3" });
    expect(outcome.starts).toBe(0);
    expect(outcome.error).toBeInstanceOf(TypeError);
    expect((outcome.error as Error).message).toBe(
      `connectMcpServer: \`${name}\` must be ${allowed}; got "3"`,
    );
  });

  it("of 1 is taken: the transport is started", async () => {
    expect(await connectWith({ [name]: 1 })).toEqual({ kind: "connect-failed", starts: 1 });
  });
});

describe.each(TIMEOUTS)("connectMcpServer's %s", (name) => {
  it.each([
    ["0", 0],
    ["-1", -1],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["2147483648", 2 ** 31],
  ])("of %s rejects with a RangeError before the transport starts", async (shown, value) => {
    const outcome = await connectWith({ [name]: value });
    expect(outcome.starts).toBe(0);
    expect(outcome.error).toBeInstanceOf(RangeError);
    expect((outcome.error as Error).message).toBe(
      `connectMcpServer: \`${name}\` must be ${TIMEOUT_ALLOWED}; got ${shown}`,
    );
  });

  it('of "3" rejects with a TypeError', async () => {
    const outcome = await connectWith({ [name]: "3" });
    expect(outcome.starts).toBe(0);
    expect(outcome.error).toBeInstanceOf(TypeError);
    expect((outcome.error as Error).message).toBe(
      `connectMcpServer: \`${name}\` must be ${TIMEOUT_ALLOWED}; got "3"`,
    );
  });

  it.each([
    ["1.5", 1.5],
    ["2147483647", 2 ** 31 - 1],
  ])("of %s is taken", async (_shown, value) => {
    expect(await connectWith({ [name]: value })).toEqual({ kind: "connect-failed", starts: 1 });
  });
});

describe("connectMcpServer over stdio", () => {
  const command = "/nonexistent/jp-no-such-mcp-server";

  it("reports a bad option, not the command that cannot start", async () => {
    const transport = new StdioClientTransport({ command });
    await expect(
      connectMcpServer({ name: "s", transport, maxRounds: Number.NaN }),
    ).rejects.toStrictEqual(
      new RangeError(
        "connectMcpServer: `maxRounds` must be a whole number of rounds, at least 1; got NaN",
      ),
    );
  });

  it("with good options reports the command that cannot start as connect-failed", async () => {
    const transport = new StdioClientTransport({ command });
    const result = await connectMcpServer({ name: "s", transport, maxRounds: 4 });
    expect(result.isErr() && result.error.kind).toBe("connect-failed");
  });
});

describe("createMcpToolServer", () => {
  const create = (options: Record<string, unknown>) =>
    createMcpToolServer({ name: "t", version: "1", tools: {}, ...options });
  const COUNT_ALLOWED = "a whole number of questions, at least 1";
  const SECONDS_ALLOWED = "a finite number of seconds greater than 0";

  describe("maxQuestionsPerCall", () => {
    it.each([
      ["0", 0],
      ["-1", -1],
      ["NaN", Number.NaN],
      ["Infinity", Number.POSITIVE_INFINITY],
      ["1.5", 1.5],
    ])("of %s throws a RangeError", (shown, value) => {
      expect(thrown(() => create({ maxQuestionsPerCall: value }))).toStrictEqual(
        new RangeError(
          `createMcpToolServer: \`maxQuestionsPerCall\` must be ${COUNT_ALLOWED}; got ${shown}`,
        ),
      );
    });

    it('of "3" throws a TypeError', () => {
      expect(thrown(() => create({ maxQuestionsPerCall: "3" }))).toStrictEqual(
        new TypeError(
          `createMcpToolServer: \`maxQuestionsPerCall\` must be ${COUNT_ALLOWED}; got "3"`,
        ),
      );
    });

    it("of 1 is taken", () => {
      expect(create({ maxQuestionsPerCall: 1 })).toBeTypeOf("function");
    });
  });

  describe("answerTimeoutMs", () => {
    it.each([
      ["0", 0],
      ["-1", -1],
      ["NaN", Number.NaN],
      ["Infinity", Number.POSITIVE_INFINITY],
      ["2147483648", 2 ** 31],
    ])("of %s throws a RangeError", (shown, value) => {
      expect(thrown(() => create({ answerTimeoutMs: value }))).toStrictEqual(
        new RangeError(
          `createMcpToolServer: \`answerTimeoutMs\` must be ${TIMEOUT_ALLOWED}; got ${shown}`,
        ),
      );
    });

    it('of "3" throws a TypeError', () => {
      expect(thrown(() => create({ answerTimeoutMs: "3" }))).toStrictEqual(
        new TypeError(
          `createMcpToolServer: \`answerTimeoutMs\` must be ${TIMEOUT_ALLOWED}; got "3"`,
        ),
      );
    });

    it.each([1.5, 2 ** 31 - 1])("of %d is taken", (value) => {
      expect(create({ answerTimeoutMs: value })).toBeTypeOf("function");
    });
  });

  describe("stateTtlSeconds", () => {
    it.each([
      ["0", 0],
      ["-1", -1],
      ["NaN", Number.NaN],
      ["Infinity", Number.POSITIVE_INFINITY],
    ])("of %s throws a RangeError naming createMcpToolServer", (shown, value) => {
      expect(thrown(() => create({ stateTtlSeconds: value }))).toStrictEqual(
        new RangeError(
          `createMcpToolServer: \`stateTtlSeconds\` must be ${SECONDS_ALLOWED}; got ${shown}`,
        ),
      );
    });

    it('of "3" throws a TypeError', () => {
      expect(thrown(() => create({ stateTtlSeconds: "3" }))).toStrictEqual(
        new TypeError(
          `createMcpToolServer: \`stateTtlSeconds\` must be ${SECONDS_ALLOWED}; got "3"`,
        ),
      );
    });

    it("of 1.5 is taken", () => {
      expect(create({ stateTtlSeconds: 1.5 })).toBeTypeOf("function");
    });
  });

  describe("stateKey", () => {
    const allowed = "a string or Uint8Array of at least 32 bytes";

    it("shorter than 32 bytes throws a RangeError naming createMcpToolServer", () => {
      expect(thrown(() => create({ stateKey: "short" }))).toStrictEqual(
        new RangeError(`createMcpToolServer: \`stateKey\` must be ${allowed}; got 5 bytes`),
      );
      expect(thrown(() => create({ stateKey: new Uint8Array(31) }))).toStrictEqual(
        new RangeError(`createMcpToolServer: \`stateKey\` must be ${allowed}; got 31 bytes`),
      );
    });

    it("that is neither a string nor bytes throws a TypeError", () => {
      expect(thrown(() => create({ stateKey: 42 }))).toStrictEqual(
        new TypeError(`createMcpToolServer: \`stateKey\` must be ${allowed}; got number`),
      );
    });

    it("of 32 bytes is taken, counted in UTF-8", () => {
      expect(create({ stateKey: "é".repeat(16) })).toBeTypeOf("function");
      expect(create({ stateKey: new Uint8Array(32) })).toBeTypeOf("function");
    });
  });
});
