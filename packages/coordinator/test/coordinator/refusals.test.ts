import type { Question } from "@jp/tool";
import { describe, expect, it } from "vitest";
import {
  type PromptRefusal,
  type ToolCoordinatorOptions,
  type ToolsConfig,
  TurnState,
} from "../../src/index.js";
import { MockExecutor, MockExecutorSource, MockPromptBackend } from "../../src/testing/index.js";
import { coordinatorFor, inquiryTrail } from "../helpers.js";
import { asking, booleanQuestion, call, secretQuestion } from "../support.js";

const NON_INTERACTIVE = "the run is non-interactive, so no user can answer";
const NO_TERMINAL = "no interactive terminal is available";
const cannotRun = (tool: string, why: string) =>
  `${tool} cannot run because ${why}. Do not retry this tool call in this turn; continue without user input or explain what information is missing.`;

type Detachment = "non-interactive" | "no backend" | "nobody reachable";

/** How the run is detached, as the coordinator's options say it. */
function detachment(how: Detachment): Pick<ToolCoordinatorOptions, "prompts" | "nonInteractive"> {
  switch (how) {
    case "non-interactive":
      // A terminal is there; the run is told not to use it.
      return { prompts: new MockPromptBackend(), nonInteractive: true };
    case "no backend":
      return {};
    case "nobody reachable":
      return { prompts: new MockPromptBackend({}, { reachable: false }) };
  }
}

async function refusedRun(how: Detachment, tools: ToolsConfig, question: Question) {
  const { stream, coordinator } = coordinatorFor({
    ...detachment(how),
    tools,
    executors: new MockExecutorSource({ deploy: asking([question]) }),
  });
  const emitted: PromptRefusal[] = [];
  coordinator.on("prompt-refused", (refusal) => emitted.push(refusal));
  const result = await coordinator.run([call("call_1", "deploy")], { turn: new TurnState() });
  return { stream, result, emitted };
}

describe("a detached question refusal: short honest model text, a host explanation that names the cause and the key", () => {
  it.each<[string, Detachment, ToolsConfig, Question, string, string[]]>([
    [
      "--non-interactive with a terminal present, default deny",
      "non-interactive",
      {},
      booleanQuestion(),
      NON_INTERACTIVE,
      ["--non-interactive", 'is "deny"', "conversation.tools.deploy.detached.tool"],
    ],
    [
      "no prompt backend, default deny",
      "no backend",
      {},
      booleanQuestion(),
      NO_TERMINAL,
      ["no prompt backend is configured", "conversation.tools.deploy.detached.tool"],
    ],
    [
      "nobody reachable, explicit deny",
      "nobody reachable",
      { deploy: { detached: "deny" } },
      booleanQuestion(),
      NO_TERMINAL,
      ["nobody is reachable", 'is "deny"', "conversation.tools.deploy.detached.tool"],
    ],
    [
      "defaults, but the question has no default",
      "nobody reachable",
      { deploy: { detached: "defaults" } },
      booleanQuestion(),
      NO_TERMINAL,
      ['detached.tool is "defaults"', "has no default", 'detached.tool = "auto"'],
    ],
    [
      "defaults, and the question is a secret",
      "non-interactive",
      { deploy: { detached: "defaults" } },
      secretQuestion(),
      NON_INTERACTIVE,
      ['is "defaults"', "asks for a secret", "no setting changes this"],
    ],
    [
      "auto, but the tool marks the question exclusive",
      "nobody reachable",
      { deploy: { detached: "auto" } },
      booleanQuestion("confirm", { exclusive: true }),
      NO_TERMINAL,
      [
        'the tool marks question "confirm" exclusive',
        "set conversation.tools.deploy.questions.confirm.exclusive = false",
      ],
    ],
    [
      "auto, but the configuration marks the question exclusive",
      "nobody reachable",
      { deploy: { detached: "auto", questions: { confirm: { exclusive: true } } } },
      booleanQuestion(),
      NO_TERMINAL,
      ["conversation.tools.deploy.questions.confirm.exclusive is true"],
    ],
  ])("%s", async (_name, how, tools, question, why, explains) => {
    const { stream, result, emitted } = await refusedRun(
      how,
      { ...tools, deploy: { run: "unattended", ...tools.deploy } },
      question,
    );

    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      [cannotRun("deploy", why), true],
    ]);
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
      { response: `call_1.${question.id}.1`, cancelled: "no_prompt_backend" },
    ]);
    const expected = {
      tool_call_id: "call_1",
      tool_name: "deploy",
      kind: "question",
      inquiry_id: `call_1.${question.id}.1`,
      reason: "no_prompt_backend",
      explanation: expect.stringMatching(/^deploy: question "\w+" was not asked because /),
    };
    expect(result.refusals).toEqual([expected]);
    expect(emitted).toEqual(result.refusals);
    for (const part of explains) expect(result.refusals[0]?.explanation).toContain(part);
  });

  it("a human-only question configured for the assistant names the target key", async () => {
    const { result } = await refusedRun(
      "no backend",
      { deploy: { run: "unattended", questions: { token: { target: "assistant" } } } },
      secretQuestion(),
    );
    expect(result.responses[0]?.content).toBe(
      "deploy requires a human answer and cannot be routed to the assistant. Do not retry this tool call in this turn.",
    );
    expect(result.refusals).toEqual([
      expect.objectContaining({ reason: "assistant_routing_denied", kind: "question" }),
    ]);
    expect(result.refusals[0]?.explanation).toMatch(
      /^conversation\.tools\.deploy\.questions\.token\.target sends question "token" to the assistant, but question "token" asks for a secret/,
    );
  });
});

describe('a misfit answer from `questions."*"` names the key the user wrote', () => {
  it("the model text and the host explanation", async () => {
    const { stream, result } = await refusedRun(
      "no backend",
      { deploy: { run: "unattended", questions: { "*": { answer: "maybe" } } } },
      booleanQuestion(),
    );
    expect(result.responses.map((r) => r.content)).toEqual([
      expect.stringMatching(
        /^deploy: the configured conversation\.tools\.deploy\.questions\.\*\.answer value does not match the question's answer_type\. Update the configuration; do not retry\. \(/,
      ),
    ]);
    expect(inquiryTrail(stream.events).filter((e) => "response" in e)).toEqual([
      { response: "call_1.confirm.1", cancelled: "invalid_static_answer" },
    ]);
    expect(result.refusals).toEqual([
      expect.objectContaining({ reason: "invalid_static_answer", inquiry_id: "call_1.confirm.1" }),
    ]);
    expect(result.refusals[0]?.explanation).toMatch(
      /^conversation\.tools\.deploy\.questions\."\*"\.answer does not fit question "confirm": /,
    );
  });

  it("a question's own answer still names its own key", async () => {
    const { result } = await refusedRun(
      "no backend",
      {
        deploy: {
          run: "unattended",
          questions: { "*": { answer: true }, confirm: { answer: "maybe" } },
        },
      },
      booleanQuestion(),
    );
    expect(result.responses[0]?.content).toMatch(
      /conversation\.tools\.deploy\.questions\.confirm\.answer value does not match/,
    );
    expect(result.refusals[0]?.explanation).toMatch(
      /^conversation\.tools\.deploy\.questions\.confirm\.answer does not fit/,
    );
  });
});

describe("detached permission and delivery refusals", () => {
  it("permission: --non-interactive names the run key and says the run is non-interactive", async () => {
    const tool = new MockExecutor([{ type: "success", content: "ran" }]);
    const { coordinator } = coordinatorFor({
      tools: { shell: { run: "ask", detached: { run: "defaults" } } },
      executors: new MockExecutorSource({ shell: tool }),
      prompts: new MockPromptBackend(),
      nonInteractive: true,
    });
    const { responses, refusals } = await coordinator.run([call("call_1", "shell")], {
      turn: new TurnState(),
    });
    expect(tool.executions).toEqual([]);
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      [cannotRun("shell", NON_INTERACTIVE), true],
    ]);
    expect(refusals).toEqual([
      {
        tool_call_id: "call_1",
        tool_name: "shell",
        kind: "permission",
        reason: "no_prompt_backend",
        explanation: expect.stringContaining(
          'conversation.tools.shell.detached.run is "defaults" (a permission prompt has no default answer); set it to "auto"',
        ),
      },
    ]);
  });

  it("delivery: nobody reachable names the deliver key", async () => {
    const { coordinator } = coordinatorFor({
      tools: { build: { run: "unattended", result: "ask" } },
      executors: new MockExecutorSource({
        build: new MockExecutor([{ type: "success", content: "built" }]),
      }),
      prompts: new MockPromptBackend({}, { reachable: false }),
    });
    const { responses, refusals } = await coordinator.run([call("call_1", "build")], {
      turn: new TurnState(),
    });
    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      [
        "build ran, but its result was not delivered because no interactive terminal is available to approve it. Do not retry this tool call in this turn.",
        true,
      ],
    ]);
    expect(refusals).toEqual([
      expect.objectContaining({
        kind: "deliver",
        tool_call_id: "call_1",
        reason: "no_prompt_backend",
      }),
    ]);
    expect(refusals[0]?.explanation).toContain(
      'conversation.tools.build.detached.deliver is "deny"; set it to "auto" or "defaults"',
    );
  });

  it("two runs of one coordinator at once each report only their own refusals", async () => {
    const { coordinator } = coordinatorFor({
      tools: { deploy: { run: "unattended" } },
      executors: new MockExecutorSource({ deploy: asking([booleanQuestion()]) }),
    });
    const [first, second] = await Promise.all([
      coordinator.run([call("call_1", "deploy")], { turn: new TurnState() }),
      coordinator.run([call("call_2", "deploy")], { turn: new TurnState() }),
    ]);
    expect(first.refusals.map((r) => r.tool_call_id)).toEqual(["call_1"]);
    expect(second.refusals.map((r) => r.tool_call_id)).toEqual(["call_2"]);
  });

  it("a run with nothing refused reports no refusals", async () => {
    const { coordinator } = coordinatorFor({
      tools: { build: { run: "unattended" } },
      executors: new MockExecutorSource({
        build: new MockExecutor([{ type: "success", content: "built" }]),
      }),
    });
    const { refusals } = await coordinator.run([call("call_1", "build")], {
      turn: new TurnState(),
    });
    expect(refusals).toEqual([]);
  });
});
