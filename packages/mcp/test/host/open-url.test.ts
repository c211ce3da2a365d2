// The host's `openUrl` is the host's code: one that never settles must not hold the call past
// the run's stop, nor the calls after it on the same connection.
import type { JsonValue } from "@jp/conversation";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpConnection } from "../../src/index.js";
import { connect, ERAS, elicitLog, inquiries, responseOf, run, unpaired } from "../support.js";

const answer = (value: JsonValue) => ({ type: "answer", value }) as const;

describe.each(ERAS)("an openUrl that never settles, on %s", (version, negotiation) => {
  const era = [version, negotiation] as (typeof ERAS)[number];
  const log = elicitLog();
  const opening: string[] = [];
  let server: McpConnection;

  beforeAll(async () => {
    server = await connect(era, {
      env: { ELICIT_LOG: log.path },
      openUrl: (url) => {
        opening.push(url);
        return new Promise<void>(() => {});
      },
    });
  }, 30_000);
  afterAll(async () => {
    await server?.close();
    log.remove();
  });

  it("the run's stop ends the call at once, never as the person's decline, and the next call runs", async () => {
    const stop = new AbortController();
    const human = new MockPromptBackend({ questions: [answer("open")] });
    const stopped = run(server, [{ id: "u1", name: "api_key" }], {
      prompts: human,
      signal: stop.signal,
    });
    await expect.poll(() => opening).toEqual(["https://mcp.example.com/ui/set_api_key"]);
    stop.abort(new Error("shutting down"));
    const { stream } = await stopped;
    expect(inquiries(stream)).toEqual([["u1.open_url.1", "open"]]);
    const response = responseOf(stream, "u1");
    expect(response.content).toBe(
      "Tool execution interrupted: the run was stopped before the tool finished. The user did not decline.",
    );
    expect(unpaired(stream)).toEqual([]);
    // The connection is free for the next call.
    const next = new MockPromptBackend({
      questions: [answer("accept"), answer("Ada"), answer("ada@example.com"), answer(36)],
    });
    const after = await run(server, [{ id: "c1", name: "contact" }], { prompts: next });
    expect(JSON.parse(responseOf(after.stream, "c1").content)).toMatchObject({
      action: "accept",
      content: { name: "Ada", email: "ada@example.com", age: 36 },
    });
  });
});
