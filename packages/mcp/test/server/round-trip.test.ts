// Both halves of this package, each in its own process: our tools served over stdio, and a host
// whose coordinator asks the person and records every question.
import { MockPromptBackend } from "@jp/coordinator/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpConnection } from "../../src/index.js";
import { connect, ERAS, inquiries, responseOf, run, unpaired } from "../support.js";

describe.each(ERAS)("our host and our tool server on %s", (version, negotiation) => {
  const era = [version, negotiation] as (typeof ERAS)[number];
  let tools: McpConnection;

  beforeAll(async () => {
    tools = await connect(era, { script: "tool-server.ts" });
  }, 30_000);
  afterAll(async () => {
    await tools?.close();
  });

  it("ask_user served over MCP is asked and recorded on the host", async () => {
    const human = new MockPromptBackend({
      questions: [
        { type: "answer", value: "accept" },
        { type: "answer", value: "staging" },
      ],
    });
    const args = { question: "Where to?", answer_type: "select", options: ["staging", "prod"] };
    const { stream } = await run(tools, [{ id: "a1", name: "ask_user", arguments: args }], {
      prompts: human,
    });
    expect(human.questions.map((q) => [q.question.text, q.question.answer_type])).toEqual([
      ["Where to?", { type: "select", options: ["accept", "decline"] }],
      ["Answer", { type: "select", options: ["staging", "prod"] }],
    ]);
    expect(inquiries(stream)).toEqual([
      ["a1.respond.1", "accept"],
      ["a1.answer.1", "staging"],
    ]);
    expect(responseOf(stream, "a1")).toEqual({
      content: '{"answer_type":"select","answer":"staging"}',
      is_error: false,
    });
    expect(unpaired(stream)).toEqual([]);
  });

  it("the person's decline reaches the tool as the person's", async () => {
    const human = new MockPromptBackend({ questions: [{ type: "answer", value: "decline" }] });
    const args = { question: "Delete it?", answer_type: "boolean" };
    const { stream } = await run(tools, [{ id: "a2", name: "ask_user", arguments: args }], {
      prompts: human,
    });
    expect(responseOf(stream, "a2")).toEqual({
      content: 'The user declined to answer "Delete it?".',
      is_error: false,
    });
  });

  it("a secret question is refused by the server, with nothing asked", async () => {
    const human = new MockPromptBackend();
    const { stream } = await run(tools, [{ id: "s1", name: "login" }], { prompts: human });
    expect(human.requests).toEqual([]);
    expect(responseOf(stream, "s1").content).toContain("asks for a secret");
    expect(unpaired(stream)).toEqual([]);
  });
});
