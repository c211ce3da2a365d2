import { type JsonValue, toMarkdown } from "@jp/conversation";
import { parseOutcome } from "@jp/tool";
import { describe, expect, it } from "vitest";
import { type Executor, type QuestionPromptRequest, TurnState } from "../../src/index.js";
import { MockExecutorSource, MockPromptBackend } from "../../src/testing/index.js";
import { coordinatorFor, inquiryTrail } from "../helpers.js";
import { asking, call, recordEmitted, secretQuestion, UNATTENDED } from "../support.js";

const PROMPTED = "sweep-prompted-Zq81";
const STATIC = "sweep-static-Kx27";
const LOCAL = "sweep-local-Wm55";

/**
 * A local-tool-style executor: each pass "runs a command" that gets the answers as
 * `tool.answers` JSON and speaks JP's stdout protocol. It echoes nothing of its answers.
 */
function localTool(received: JsonValue[]): Executor {
  const program = (context: string): string => {
    const { tool } = JSON.parse(context) as { tool: { answers: Record<string, JsonValue> } };
    const passphrase = tool.answers.passphrase;
    if (passphrase === undefined) {
      return '{"type":"needs_input","question":{"id":"passphrase","text":"SSH passphrase?","answer_type":{"type":"secret"}}}';
    }
    received.push(passphrase);
    return '{"type":"success","content":"key unlocked"}';
  };
  return {
    async execute({ call: toolCall, answers }) {
      const stdout = program(JSON.stringify({ tool: { name: toolCall.name, answers } }));
      const outcome = parseOutcome(stdout)._unsafeUnwrap();
      if (outcome.type === "needs_input") {
        return {
          type: "needs_input",
          question: outcome.question,
          source: { source: "tool", name: toolCall.name },
        };
      }
      return outcome.type === "success"
        ? { type: "completed", content: outcome.content, is_error: false }
        : { type: "completed", content: outcome.message, is_error: true };
    },
  };
}

describe("secrets sweep", () => {
  it("no secret reaches the stream, the events, the results or the turn cache; the tools got them", async () => {
    const received: Record<string, JsonValue[]> = { login: [], deploy: [], ssh: [] };
    const human = new MockPromptBackend({
      questions: Array.from({ length: 2 }, () => (request: QuestionPromptRequest) => ({
        type: "answer" as const,
        value: request.tool_name === "login" ? PROMPTED : LOCAL,
        remember: true,
      })),
    });
    const { stream, coordinator } = coordinatorFor({
      tools: { ...UNATTENDED, deploy: { questions: { token: { answer: STATIC } } } },
      executors: new MockExecutorSource({
        login: asking([secretQuestion()], (answers) => {
          received.login?.push(answers.token ?? null);
          return "logged in";
        }),
        deploy: asking([secretQuestion()], (answers) => {
          received.deploy?.push(answers.token ?? null);
          return "deployed";
        }),
        ssh: localTool(received.ssh ?? []),
      }),
      prompts: human,
    });
    const emitted = recordEmitted(coordinator);
    const turn = new TurnState();

    const { responses } = await coordinator.run(
      [call("call_1", "login"), call("call_2", "deploy"), call("call_3", "ssh")],
      { turn },
    );

    // The tools received their secrets in memory.
    expect(received).toEqual({ login: [PROMPTED], deploy: [STATIC], ssh: [LOCAL] });
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      ["logged in", false],
      ["deployed", false],
      ["key unlocked", false],
    ]);
    // Every secret answer is recorded, redacted.
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual(
      expect.arrayContaining([
        { response: "call_1.token.1", redacted: true },
        { response: "call_2.token.1", redacted: true },
        { response: "call_3.passphrase.1", redacted: true },
      ]),
    );

    const places: Record<string, string> = {
      "stream events": JSON.stringify(stream.events),
      "stream on disk": JSON.stringify(stream.toJSON()),
      markdown: toMarkdown(stream),
      "coordinator events": JSON.stringify(emitted.map((e) => e.payload)),
      "tool results": JSON.stringify(responses),
      "turn cache": JSON.stringify([
        ...turn.remembered_tool_answers,
        ...turn.remembered_permission_decisions,
      ]),
    };
    for (const [where, text] of Object.entries(places)) {
      for (const secret of [PROMPTED, STATIC, LOCAL]) {
        expect(text.includes(secret), `${secret} leaked into ${where}`).toBe(false);
      }
    }
  });
});
