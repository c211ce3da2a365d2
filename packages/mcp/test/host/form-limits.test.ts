// What an elicitation may show a person is bounded in both eras: each text at its limit is shown
// as sent, one character more refuses the elicitation before anyone is asked.
import type { JsonObject } from "@jp/conversation";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { InMemoryTransport } from "@modelcontextprotocol/client";
import { fromJsonSchema, McpServer, type ServerContext } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it } from "vitest";
import { planElicitation, QuestionIds } from "../../src/host/elicitation.js";
import { connectMcpServer, questionsForElicitation } from "../../src/index.js";
import { responseOf, run, unpaired } from "../support.js";

const form = (property: JsonObject, name = "f"): JsonObject => ({
  type: "object",
  properties: { [name]: property },
});
const mapped = (schema: JsonObject) => questionsForElicitation(schema, { server: "s" });

describe("questionsForElicitation: texts at their limits", () => {
  const cases: [string, (text: string) => JsonObject, number, string][] = [
    ["a field name", (t) => form({ type: "string" }, t), 256, ".properties: has a field name 257"],
    ["a title", (t) => form({ type: "string", title: t }), 256, '.properties["f"].title: is 257'],
    [
      "a description",
      (t) => form({ type: "string", description: t }),
      4096,
      '.properties["f"].description: is 4097',
    ],
    [
      "a text default",
      (t) => form({ type: "string", default: t }),
      4096,
      '.properties["f"].default: is 4097',
    ],
    [
      "a pattern",
      (t) => form({ type: "string", pattern: t }),
      4096,
      '.properties["f"].pattern: is 4097',
    ],
    [
      "an enum value",
      (t) => form({ type: "string", enum: ["a", t] }),
      256,
      '.properties["f"] choice 2: is 257',
    ],
    [
      "a legacy enumNames title",
      (t) => form({ type: "string", enum: ["a", "b"], enumNames: ["A", t] }),
      256,
      '.properties["f"] choice 2: is 257',
    ],
    [
      "a oneOf title",
      (t) => form({ type: "string", oneOf: [{ const: "a", title: t }] }),
      256,
      '.properties["f"] choice 1: is 257',
    ],
    [
      "an array choice",
      (t) => form({ type: "array", items: { anyOf: [{ const: t }] } }),
      256,
      '.properties["f"].items choice 1: is 257',
    ],
  ];

  it.each(cases)(
    "%s: at the limit it is shown, one over it is refused",
    (_what, schema, limit, path) => {
      const at = mapped(schema("a".repeat(limit)));
      expect(at.isOk()).toBe(true);
      const over = mapped(schema("a".repeat(limit + 1)))._unsafeUnwrapErr();
      expect(over.kind).toBe("too-large");
      expect(over.message).toBe(
        `requestedSchema${path} characters long; at most ${limit} are shown`,
      );
    },
  );

  const long = "k".repeat(100_000);
  it.each([
    ["a long field name", form({ type: 7 }, long)],
    ["an unknown top-level key", { type: "object", properties: {}, [long]: 1 }],
    ["an unknown property key", form({ type: "string", [long]: 1 })],
    ["an unknown items key", form({ type: "array", items: { enum: ["a"], [long]: 1 } })],
    ["an unknown required name", { type: "object", properties: {}, required: [long] }],
  ])("a refusal naming %s quotes at most its start", (_what, schema) => {
    const error = mapped(schema as JsonObject)._unsafeUnwrapErr();
    expect(error.message.length).toBeLessThan(200);
  });
});

describe("planElicitation: the message", () => {
  const asker = { server: "s", tool: "t" };
  const params = (message: string) => ({
    mode: "form",
    message,
    requestedSchema: { type: "object", properties: {} },
  });

  it("of 4096 characters is the question's text; 4097 are refused", () => {
    const at = planElicitation(params("m".repeat(4096)), asker, new QuestionIds());
    expect(at._unsafeUnwrap().gate.text).toBe("m".repeat(4096));
    const over = planElicitation(params("m".repeat(4097)), asker, new QuestionIds());
    expect(over._unsafeUnwrapErr()).toEqual({
      kind: "too-large",
      message: "the elicitation message is 4097 characters long; at most 4096 are shown",
    });
  });

  it("of a URL elicitation is bounded the same way", () => {
    const url = { mode: "url", url: "https://auth.example/", elicitationId: "e" };
    expect(
      planElicitation(
        { ...url, message: "m".repeat(4097) },
        asker,
        new QuestionIds(),
      )._unsafeUnwrapErr().kind,
    ).toBe("too-large");
  });
});

describe("a 2025-11-25 server pushing an elicitation", () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.close()));
  });

  /** A server whose tool pushes one form with `message` and reports how the client answered. */
  async function connect(message: string) {
    const server = new McpServer({ name: "p", version: "1" });
    server.registerTool(
      "t",
      { description: "asks once", inputSchema: fromJsonSchema({ type: "object" }) },
      async (_args: unknown, ctx: ServerContext) => {
        try {
          const result = await ctx.mcpReq.elicitInput({
            message,
            requestedSchema: { type: "object", properties: {} },
          } as never);
          return { content: [{ type: "text", text: result.action }] };
        } catch (error) {
          return { content: [{ type: "text", text: `refused: ${(error as Error).message}` }] };
        }
      },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const refused: string[] = [];
    const connection = (
      await connectMcpServer({
        name: "p",
        transport: clientSide,
        onRefused: (event) => refused.push(event.message),
      })
    )._unsafeUnwrap();
    open.push(connection, server);
    return { connection, refused };
  }

  it("a message of 4097 characters is refused before anyone is asked; 4096 are asked", async () => {
    const over = await connect("m".repeat(4097));
    const nobody = new MockPromptBackend();
    const refused = await run(over.connection, [{ id: "c1", name: "t" }], { prompts: nobody });
    expect(nobody.requests).toEqual([]);
    expect(responseOf(refused.stream, "c1").content).toContain(
      "the elicitation message is 4097 characters long; at most 4096 are shown",
    );
    expect(over.refused).toEqual([
      "the elicitation message is 4097 characters long; at most 4096 are shown",
    ]);
    expect(unpaired(refused.stream)).toEqual([]);

    const at = await connect("m".repeat(4096));
    const person = new MockPromptBackend({ questions: [{ type: "answer", value: "accept" }] });
    const asked = await run(at.connection, [{ id: "c1", name: "t" }], { prompts: person });
    expect(person.questions[0]?.question.text).toBe("m".repeat(4096));
    expect(responseOf(asked.stream, "c1").content).toBe("accept");
  });
});
