// Servers that misbehave get clear errors, nobody is asked what should not be asked, and the
import type { JsonValue } from "@jp/conversation";
// stream stays paired.
import type { PromptBackend } from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { McpConnection, RefusedElicitation } from "../../src/index.js";
import { connect, ERAS, elicitLog, inquiries, responseOf, run, unpaired } from "../support.js";

const answer = (value: JsonValue) => ({ type: "answer", value }) as const;

describe.each(ERAS)("a hostile MCP server on %s", (version, negotiation) => {
  const era = [version, negotiation] as (typeof ERAS)[number];
  const legacy = version !== "2026-07-28";
  const log = elicitLog();
  const refused: RefusedElicitation[] = [];
  const opened: string[] = [];
  let server: McpConnection;

  beforeAll(async () => {
    server = await connect(era, {
      env: { ELICIT_LOG: log.path },
      // On 2025 each elicitation counts: more than a flood's waiting ones (maxPending).
      maxRounds: legacy ? 6 : 3,
      serverTimeoutMs: 400,
      maxPendingElicitations: 4,
      onRefused: (event) => refused.push(event),
      openUrl: (url) => {
        opened.push(url);
      },
    });
  }, 30_000);
  afterAll(async () => {
    await server?.close();
    log.remove();
  });
  beforeEach(() => {
    log.clear();
    refused.length = 0;
  });

  it("a schema outside the flat subset is refused before anyone is asked", async () => {
    const human = new MockPromptBackend();
    const { stream } = await run(server, [{ id: "b1", name: "bad_schema" }], { prompts: human });
    expect(human.requests).toEqual([]);
    expect(inquiries(stream)).toEqual([]);
    const response = responseOf(stream, "b1");
    if (legacy) {
      // The SDK's own validation or ours answers the push with invalid params; the server reports it.
      expect(response.content).toMatch(/Invalid|requestedSchema/);
    } else {
      expect(response).toEqual({
        is_error: true,
        content: expect.stringContaining(
          'its input request "where" was refused: requestedSchema.properties["address"].type',
        ),
      });
      expect(refused).toEqual([expect.objectContaining({ server: "fixture", tool_call_id: "b1" })]);
    }
    expect(unpaired(stream)).toEqual([]);
  });

  it("a URL whose host is disguised is refused and never opened", async () => {
    const human = new MockPromptBackend();
    const { stream } = await run(server, [{ id: "d1", name: "deceptive_url" }], { prompts: human });
    expect(human.requests).toEqual([]);
    expect(opened).toEqual([]);
    expect(responseOf(stream, "d1").content).toContain("has a user name before its host");
    expect(refused.map((r) => r.message)).toEqual([
      expect.stringContaining('has a user name before its host ("…@evil.example")'),
    ]);
    expect(unpaired(stream)).toEqual([]);
  });

  it("a server that never stops asking is cut off after the round limit", async () => {
    const human = new MockPromptBackend({
      questions: Array.from({ length: 12 }, () => answer("accept")),
    });
    const { stream } = await run(server, [{ id: "n1", name: "endless" }], { prompts: human });
    const response = responseOf(stream, "n1");
    expect(response.is_error).toBe(true);
    if (legacy) {
      // The seventh elicitation is refused before anyone is asked; the server gives up on it.
      expect(response.content).toContain(
        "too many elicitations in one tool call (at most 6, maxRounds)",
      );
      expect(human.questions).toHaveLength(6);
      expect(refused.map((r) => r.message)).toEqual([
        "too many elicitations in one tool call (at most 6, maxRounds)",
      ]);
    } else {
      expect(response.content).toContain("the server still asked for input after 3 rounds");
      // The third round's answers could never be sent: it is not asked.
      expect(human.questions).toHaveLength(2);
    }
    expect(unpaired(stream)).toEqual([]);
  });

  it("a server that only ever sends state back is cut off without asking", async () => {
    const human = new MockPromptBackend();
    const { stream } = await run(server, [{ id: "s1", name: "state_only" }], { prompts: human });
    expect(human.requests).toEqual([]);
    expect(responseOf(stream, "s1").is_error).toBe(true);
  });

  it("a server that never answers fails the call with the limit it broke", async () => {
    const { stream } = await run(server, [{ id: "w1", name: "slow" }]);
    expect(responseOf(stream, "w1")).toEqual({
      is_error: true,
      content: expect.stringContaining("the server did not answer within 0.4 s"),
    });
  });

  if (!legacy) {
    it("a round of more input requests than a call may have waiting is refused before anyone is asked", async () => {
      const human = new MockPromptBackend();
      const { stream } = await run(server, [{ id: "f2", name: "flood" }], { prompts: human });
      expect(human.requests).toEqual([]);
      expect(responseOf(stream, "f2")).toEqual({
        is_error: true,
        content: expect.stringContaining(
          "its input-required result was refused: too many input requests in one round (12; at most 4)",
        ),
      });
      expect(refused).toEqual([
        expect.objectContaining({
          tool_call_id: "f2",
          message: expect.stringContaining("(12; at most 4)"),
        }),
      ]);
      expect(unpaired(stream)).toEqual([]);
    });
  }

  if (legacy) {
    // The limit is on the server's own working time: a person slower than it is never cut off,
    // and the server's time counts again from the answer on.
    it("time a person takes to answer does not count towards the server's limit", async () => {
      const slowPerson: PromptBackend = {
        isHumanReachable: () => true,
        ask: async (request) => {
          await new Promise((done) => setTimeout(done, 600));
          const id = request.kind === "question" ? request.question.id : "";
          return answer(id === "respond" ? "accept" : "octocat") as never;
        },
      };
      const done = await run(server, [{ id: "p1", name: "github" }], { prompts: slowPerson });
      expect(JSON.parse(responseOf(done.stream, "p1").content)).toEqual([
        expect.objectContaining({ action: "accept", content: { name: "octocat" } }),
      ]);
      const stuck = await run(server, [{ id: "p2", name: "slow_after" }], {
        prompts: slowPerson,
      });
      expect(log.read().filter((entry) => entry.tool === "slow_after")).toEqual([
        expect.objectContaining({ action: "accept" }),
      ]);
      expect(responseOf(stuck.stream, "p2")).toEqual({
        is_error: true,
        content: expect.stringContaining("the server did not answer within 0.4 s"),
      });
    });

    it("a flood of elicitations: the excess is refused, the rest declined by the person", async () => {
      const slowDecline = async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return answer("decline");
      };
      const human = new MockPromptBackend({
        questions: Array.from({ length: 12 }, () => slowDecline),
      });
      const { stream } = await run(server, [{ id: "f1", name: "flood" }], { prompts: human });
      const outcome = JSON.parse(responseOf(stream, "f1").content) as string[];
      expect(outcome.filter((o) => o === "error").length).toBeGreaterThan(0);
      expect(outcome.filter((o) => o !== "error").every((o) => o === "decline")).toBe(true);
      expect(refused.some((r) => r.message.includes("too many elicitations waiting"))).toBe(true);
      expect(human.maxConcurrentPrompts).toBe(1);
      expect(unpaired(stream)).toEqual([]);
    });

    it("an elicitation outside any tool call is refused", async () => {
      const { stream } = await run(server, [{ id: "l1", name: "late" }]);
      expect(responseOf(stream, "l1").content).toBe('"done"');
      await expect
        .poll(() => log.read())
        .toEqual([
          {
            tool: "late",
            error: expect.stringContaining("only while one of this client's tool calls runs"),
          },
        ]);
    });
  }
});
