// A host's mistake in options fails when the function is called, naming the function the host
// called, the option, the value and what is allowed.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createWebPromptHandler,
  createWebPrompts,
  type PostgresInboxLike,
  postgresInboxSource,
  type StandaloneWebPromptsOptions,
} from "../src/index.js";

afterEach(() => {
  vi.useRealTimers();
});

/** What `fn` throws, or `undefined`. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

/** What `createWebPrompts` rejects with; it must not resolve (a server listening). */
async function startRefused(options: StandaloneWebPromptsOptions): Promise<unknown> {
  try {
    const started = await createWebPrompts(options);
    if (started.isOk()) await started.value.close();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("errors name the function called", () => {
  it.each([
    [{ token: "short" }, "`token` must be at least 16 URL-safe characters"],
    [{ basePath: "nope" }, '`basePath` must look like "/prompts", got "nope"'],
    [{ allowedOrigins: ["app.example"] }, '`allowedOrigins` holds "app.example"'],
    [{ maxBodyBytes: 0 }, "`maxBodyBytes` must be a whole number of bytes, at least 1; got 0"],
  ])("%j", async (options, message) => {
    const started = (await startRefused(options)) as Error;
    expect(started.message.startsWith(`createWebPrompts: ${message}`), started.message).toBe(true);
    const mounted = thrown(() => createWebPromptHandler(options)) as Error;
    expect(mounted.message.startsWith(`createWebPromptHandler: ${message}`), mounted.message).toBe(
      true,
    );
  });
});

describe("maxBodyBytes", () => {
  const allowed = "a whole number of bytes, at least 1";

  it.each([
    ["0", 0],
    ["-1", -1],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["1.5", 1.5],
  ])("of %s is a RangeError", async (shown, value) => {
    const message = `\`maxBodyBytes\` must be ${allowed}; got ${shown}`;
    expect(thrown(() => createWebPromptHandler({ maxBodyBytes: value }))).toStrictEqual(
      new RangeError(`createWebPromptHandler: ${message}`),
    );
    expect(await startRefused({ maxBodyBytes: value })).toStrictEqual(
      new RangeError(`createWebPrompts: ${message}`),
    );
  });

  it('of "3" is a TypeError', () => {
    expect(thrown(() => createWebPromptHandler({ maxBodyBytes: "3" as never }))).toStrictEqual(
      new TypeError(`createWebPromptHandler: \`maxBodyBytes\` must be ${allowed}; got "3"`),
    );
  });

  it("of 1 is taken", () => {
    createWebPromptHandler({ maxBodyBytes: 1 }).close();
  });
});

describe.each(["waitForPageMs", "disconnectGraceMs"])("%s", (name) => {
  const allowed = "a number of milliseconds, at least 0 (Infinity for no limit)";

  it.each([
    ["-1", -1],
    ["NaN", Number.NaN],
  ])("of %s is a RangeError", async (shown, value) => {
    const message = `\`${name}\` must be ${allowed}; got ${shown}`;
    expect(thrown(() => createWebPromptHandler({ [name]: value }))).toStrictEqual(
      new RangeError(`createWebPromptHandler: ${message}`),
    );
    expect(await startRefused({ [name]: value })).toStrictEqual(
      new RangeError(`createWebPrompts: ${message}`),
    );
  });

  it('of "3" is a TypeError', () => {
    expect(thrown(() => createWebPromptHandler({ [name]: "3" }))).toStrictEqual(
      new TypeError(`createWebPromptHandler: \`${name}\` must be ${allowed}; got "3"`),
    );
  });

  it.each([
    ["0", 0],
    ["1.5", 1.5],
    ["Infinity", Number.POSITIVE_INFINITY],
  ])("of %s is taken", (_shown, value) => {
    createWebPromptHandler({ [name]: value }).close();
  });
});

describe("port", () => {
  const allowed = "a whole number from 0 to 65535 (0 for any free port)";

  it.each([
    ["-1", -1],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["1.5", 1.5],
    ["65536", 65536],
  ])("of %s is a RangeError naming createWebPrompts", async (shown, value) => {
    expect(await startRefused({ port: value })).toStrictEqual(
      new RangeError(`createWebPrompts: \`port\` must be ${allowed}; got ${shown}`),
    );
  });

  it('of "3" is a TypeError', async () => {
    expect(await startRefused({ port: "3" as never })).toStrictEqual(
      new TypeError(`createWebPrompts: \`port\` must be ${allowed}; got "3"`),
    );
  });

  it("of 0 listens on a free port", async () => {
    const started = await createWebPrompts({ port: 0 });
    expect(started.isOk()).toBe(true);
    if (started.isOk()) await started.value.close();
  });
});

describe("waitForPage's timeoutMs", () => {
  const allowed = "a number of milliseconds, at least 0 (Infinity for no limit)";

  it.each([
    ["-1", -1],
    ["NaN", Number.NaN],
  ])("of %s rejects with a RangeError", async (shown, value) => {
    const web = createWebPromptHandler();
    await expect(web.waitForPage({ timeoutMs: value })).rejects.toStrictEqual(
      new RangeError(`WebPrompts.waitForPage: \`timeoutMs\` must be ${allowed}; got ${shown}`),
    );
    web.close();
  });

  it('of "3" rejects with a TypeError', async () => {
    const web = createWebPromptHandler();
    await expect(web.waitForPage({ timeoutMs: "3" as never })).rejects.toStrictEqual(
      new TypeError(`WebPrompts.waitForPage: \`timeoutMs\` must be ${allowed}; got "3"`),
    );
    web.close();
  });

  it("of 0 resolves false at once when no page is open", async () => {
    const web = createWebPromptHandler();
    expect(await web.waitForPage({ timeoutMs: 0 })).toBe(false);
    web.close();
  });

  it("past what a timer holds still waits, instead of giving up at once", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const web = createWebPromptHandler();
    let settled: boolean | undefined;
    const waiting = web.waitForPage({ timeoutMs: 2 ** 31 }).then((value) => {
      settled = value;
      return value;
    });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(settled).toBeUndefined();
    web.close();
    expect(await waiting).toBe(false);
  });

  it("a waitForPageMs past what a timer holds keeps isHumanReachable waiting", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const web = createWebPromptHandler({ waitForPageMs: 2 ** 31 });
    let settled: boolean | undefined;
    const reachable = Promise.resolve(web.backend().isHumanReachable()).then((value) => {
      settled = value;
      return value;
    });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(settled).toBeUndefined();
    web.close();
    expect(await reachable).toBe(false);
  });
});

describe("postgresInboxSource", () => {
  const inbox = {} as unknown as PostgresInboxLike;
  const interval = "a number of milliseconds greater than 0, at most 2147483647 (about 24.8 days)";
  const count = "a whole number of prompts, at least 1";

  it.each([
    ["0", 0],
    ["-1", -1],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["2147483648", 2 ** 31],
  ])("pollMs of %s is a RangeError", (shown, value) => {
    expect(thrown(() => postgresInboxSource(inbox, { pollMs: value }))).toStrictEqual(
      new RangeError(`postgresInboxSource: \`pollMs\` must be ${interval}; got ${shown}`),
    );
  });

  it('pollMs of "3" is a TypeError', () => {
    expect(thrown(() => postgresInboxSource(inbox, { pollMs: "3" as never }))).toStrictEqual(
      new TypeError(`postgresInboxSource: \`pollMs\` must be ${interval}; got "3"`),
    );
  });

  it.each([
    ["0", 0],
    ["-1", -1],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["1.5", 1.5],
  ])("maxPrompts of %s is a RangeError", (shown, value) => {
    expect(thrown(() => postgresInboxSource(inbox, { maxPrompts: value }))).toStrictEqual(
      new RangeError(`postgresInboxSource: \`maxPrompts\` must be ${count}; got ${shown}`),
    );
  });

  it('maxPrompts of "3" is a TypeError', () => {
    expect(thrown(() => postgresInboxSource(inbox, { maxPrompts: "3" as never }))).toStrictEqual(
      new TypeError(`postgresInboxSource: \`maxPrompts\` must be ${count}; got "3"`),
    );
  });

  it("takes a pollMs of 1.5 and a maxPrompts of 1", () => {
    expect(postgresInboxSource(inbox, { pollMs: 1.5, maxPrompts: 1 })).toBeDefined();
  });
});
