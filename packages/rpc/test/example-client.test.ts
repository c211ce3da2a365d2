import { afterEach, describe, expect, it } from "vitest";
import { type ChildSession, EXAMPLE_CLIENT, STARTUP_MS, spawnClient } from "./child-client.js";
import { never, question, REQUESTS } from "./support.js";

// The example client of examples/rpc-client, run as its README says, answering from a script.
// CI has no /dev/tty, so prompts past the script fail: nobody is there to answer them.

let session: ChildSession | undefined;
afterEach(() => session?.stop());

describe("examples/rpc-client", { timeout: STARTUP_MS + 10_000 }, () => {
  it("answers rich prompts from its scripted answers, then fails rather than cancel", async () => {
    session = await spawnClient(EXAMPLE_CLIENT, ["yes", "blue", ":back", "skip", "edit me"]);
    const ask = (request: Parameters<ChildSession["backend"]["ask"]>[0]) =>
      session?.backend.ask(request, { signal: never() });
    expect(session.backend.client).toMatchObject({ capabilities: { prompts: "rich" } });
    expect(await ask(REQUESTS.boolean)).toEqual({ type: "answer", value: true });
    expect(await ask(REQUESTS.select)).toEqual({ type: "answer", value: "blue" });
    expect(await ask(REQUESTS.text)).toEqual({ type: "back" });
    expect(await ask(REQUESTS.permission)).toEqual({ type: "skip" });
    expect(await ask(REQUESTS.text)).toEqual({ type: "answer", value: "edit me" });
    // Nobody saw this prompt: an error (a backend error in the record), never the person's cancel.
    await expect(ask(REQUESTS.deliver)).rejects.toMatchObject({
      kind: "remote",
      message: expect.stringContaining("no scripted answer is left and there is no terminal"),
    });
  });

  it("shows a model's question text inert: no escape sequence or bidi override reaches its log", async () => {
    session = await spawnClient(EXAMPLE_CLIENT, ["yes"]);
    const hostile = question("deploy", { type: "boolean" });
    const text = "Proceed?\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2K\u202eok";
    expect(
      await session.backend.ask(
        { ...hostile, question: { ...hostile.question, text } },
        { signal: never() },
      ),
    ).toEqual({ type: "answer", value: true });
    await session.stderrIncludes("→ yes");
    const log = session.stderr();
    expect(log).toContain("Proceed?");
    expect(log).toContain("\\u202eok");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    expect(log).not.toMatch(/[\u001b\u0007\u202e]/);
  });

  it("with --simple, answers client/ask_user, then fails rather than dismiss", async () => {
    session = await spawnClient(EXAMPLE_CLIENT, ["--simple", "no"]);
    expect(session.backend.client).toMatchObject({ capabilities: { prompts: "simple" } });
    const signal = never();
    expect(await session.backend.ask(REQUESTS.boolean, { signal })).toEqual({
      type: "answer",
      value: false,
    });
    // No answer left and no terminal: an error response, not -32800 (the user dismissing it).
    await expect(session.backend.ask(REQUESTS.select, { signal })).rejects.toMatchObject({
      kind: "remote",
      message: expect.stringContaining("no scripted answer is left and there is no terminal"),
    });
  });

  it("with --simple, shows the question text of client/ask_user inert too", async () => {
    session = await spawnClient(EXAMPLE_CLIENT, ["--simple", "yes"]);
    const hostile = question("deploy", { type: "boolean" });
    const text = "Proceed?\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2K\u202eok";
    expect(
      await session.backend.ask(
        { ...hostile, question: { ...hostile.question, text } },
        { signal: never() },
      ),
    ).toEqual({ type: "answer", value: true });
    await session.stderrIncludes("→ yes");
    const log = session.stderr();
    expect(log).toContain("Proceed?");
    expect(log).toContain("\\u202eok");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
    expect(log).not.toMatch(/[\u001b\u0007\u202e]/);
  });

  it("never reads a word that is neither yes nor no as a no: a question gets it as typed, a permission is asked again", async () => {
    session = await spawnClient(EXAMPLE_CLIENT, ["maybe", "later", "run", "perhaps"]);
    const signal = never();
    // The coordinator rejects a string for a boolean and asks again; false would be recorded.
    expect(await session.backend.ask(REQUESTS.boolean, { signal })).toEqual({
      type: "answer",
      value: "maybe",
    });
    expect(await session.backend.ask(REQUESTS.permission, { signal })).toEqual({ type: "run" });
    await session.stderrIncludes("(please answer run or skip) → run");
    // No answer left after "perhaps": the delivery fails, it is never skipped.
    await expect(session.backend.ask(REQUESTS.deliver, { signal })).rejects.toMatchObject({
      kind: "remote",
      message: expect.stringContaining("no scripted answer is left"),
    });
  });
});
