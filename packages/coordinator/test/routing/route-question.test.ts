import type { JsonValue } from "@jp/conversation";
import type { Question } from "@jp/tool";
import { describe, expect, it } from "vitest";
import type { DetachedMode, QuestionConfig, Route, RouteInput } from "../../src/index.js";
import { routeQuestion } from "../../src/index.js";

// The model-facing refusals, spelled out as the seeds (RFD 083) write them: a change of wording
// must fail here, so these are literals, not the implementation's message helpers.
const noHuman = (tool: string) =>
  `${tool} cannot run because no interactive terminal is available. Do not retry this tool call in this turn; continue without user input or explain what information is missing.`;
const assistantDenied = (tool: string) =>
  `${tool} requires a human answer and cannot be routed to the assistant. Do not retry this tool call in this turn.`;
const invalidStatic = (tool: string, id: string, detail: string) =>
  `${tool}: the configured conversation.tools.${tool}.questions.${id}.answer value does not match the question's answer_type. Update the configuration; do not retry. (${detail})`;

/** A route as the table rows compare it: the host-facing explanation is checked on its own. */
type Decided = Route | Omit<Extract<Route, { type: "refuse" }>, "explanation">;

const refuseNoHuman: Decided = {
  type: "refuse",
  reason: "no_prompt_backend",
  message: noHuman("git"),
};
const refuseAssistant: Decided = {
  type: "refuse",
  reason: "assistant_routing_denied",
  message: assistantDenied("git"),
};

const confirm = (extra: Partial<Question> = {}): Question => ({
  id: "confirm",
  text: "Force push?",
  answer_type: { type: "boolean" },
  ...extra,
});
const exclusiveConfirm = confirm({ exclusive: true });
const pick = (extra: Partial<Question> = {}): Question => ({
  id: "pick",
  text: "Which remote?",
  answer_type: { type: "select", options: ["origin", "upstream"] },
  ...extra,
});
const passphrase = (extra: Partial<Question> = {}): Question => ({
  id: "passphrase",
  text: "SSH passphrase?",
  answer_type: { type: "secret" },
  ...extra,
});

interface Row {
  readonly name: string;
  readonly question: Question;
  readonly config?: QuestionConfig;
  readonly humanReachable: boolean;
  readonly detached: DetachedMode;
  readonly remembered?: JsonValue;
  readonly expected: Decided;
}

// The routing table's rows compare what is decided and what the model reads; the host-facing
// explanation has its own cases below.
function route(row: Row): Decided {
  const input: RouteInput = {
    toolName: "git",
    question: row.question,
    config: row.config,
    humanReachable: row.humanReachable,
    detached: row.detached,
    remembered: row.remembered,
  };
  const routed = routeQuestion(input);
  if (routed.type !== "refuse") return routed;
  expect(routed.explanation).toMatch(/^conversation\.tools|^git/);
  const { explanation: _, ...decided } = routed;
  return decided;
}

describe("routeQuestion: RFD 083's resolution precedence table", () => {
  it.each<Row>([
    // Row 1: `QuestionConfig.answer` set → use it, routing skipped entirely, whatever else holds.
    {
      name: "answer set, user target, human reachable",
      question: confirm(),
      config: { answer: true },
      humanReachable: true,
      detached: "deny",
      expected: { type: "static", answer: true },
    },
    {
      name: "answer set, exclusive, no human, deny",
      question: exclusiveConfirm,
      config: { answer: false },
      humanReachable: false,
      detached: "deny",
      expected: { type: "static", answer: false },
    },
    {
      name: "answer set, exclusive, target assistant",
      question: exclusiveConfirm,
      config: { answer: true, target: "assistant" },
      humanReachable: false,
      detached: "auto",
      expected: { type: "static", answer: true },
    },
    {
      name: "answer set for a select, in the options",
      question: pick(),
      config: { answer: "upstream" },
      humanReachable: true,
      detached: "deny",
      expected: { type: "static", answer: "upstream" },
    },
    // Row 2: target user, TTY available → prompt (exclusive or not).
    {
      name: "target unset (user), human reachable, exclusive false",
      question: confirm(),
      humanReachable: true,
      detached: "deny",
      expected: { type: "prompt" },
    },
    {
      name: 'target "user", human reachable, exclusive true',
      question: exclusiveConfirm,
      config: { target: "user" },
      humanReachable: true,
      detached: "deny",
      expected: { type: "prompt" },
    },
    // Row 3: target user, no TTY, exclusive false → inquiry (under detached "auto").
    {
      name: "target user, no human, exclusive false, detached auto",
      question: confirm(),
      humanReachable: false,
      detached: "auto",
      expected: { type: "inquiry" },
    },
    {
      name: 'target "user" explicit, no human, exclusive false, detached auto',
      question: confirm(),
      config: { target: "user" },
      humanReachable: false,
      detached: "auto",
      expected: { type: "inquiry" },
    },
    // Row 4: target user, no TTY, exclusive true → fail the tool (no_prompt_backend).
    {
      name: "target user, no human, exclusive true, detached auto",
      question: exclusiveConfirm,
      humanReachable: false,
      detached: "auto",
      expected: refuseNoHuman,
    },
    // Row 5: target assistant, exclusive false → inquiry (with or without a human).
    {
      name: "target assistant, exclusive false, human reachable",
      question: confirm(),
      config: { target: "assistant" },
      humanReachable: true,
      detached: "deny",
      expected: { type: "inquiry" },
    },
    {
      name: "target assistant, exclusive false, no human, deny",
      question: confirm(),
      config: { target: "assistant" },
      humanReachable: false,
      detached: "deny",
      expected: { type: "inquiry" },
    },
    // Row 6: target assistant, exclusive true → fail the tool (assistant_routing_denied).
    {
      name: "target assistant, exclusive true, human reachable",
      question: exclusiveConfirm,
      config: { target: "assistant" },
      humanReachable: true,
      detached: "auto",
      expected: refuseAssistant,
    },
    {
      name: "target assistant, exclusive true, no human",
      question: exclusiveConfirm,
      config: { target: "assistant" },
      humanReachable: false,
      detached: "auto",
      expected: refuseAssistant,
    },
  ])("$name", (row) => {
    expect(route(row)).toEqual(row.expected);
  });

  it("RFD 049's default detached policy is deny: no human and no config refuses a plain question", () => {
    expect(
      route({
        name: "",
        question: confirm(),
        humanReachable: false,
        detached: "deny",
        expected: refuseNoHuman,
      }),
    ).toEqual(refuseNoHuman);
  });
});

describe("routeQuestion: RFD 082's secret guard", () => {
  it.each<Row>([
    {
      name: "secret, no human, detached auto → no_prompt_backend",
      question: passphrase(),
      humanReachable: false,
      detached: "auto",
      expected: refuseNoHuman,
    },
    {
      name: "secret, no human, detached deny → no_prompt_backend",
      question: passphrase(),
      humanReachable: false,
      detached: "deny",
      expected: refuseNoHuman,
    },
    {
      name: "secret, no human, detached defaults, no default → no_prompt_backend",
      question: passphrase(),
      humanReachable: false,
      detached: "defaults",
      expected: refuseNoHuman,
    },
    {
      // RFD 082: "Secret question encountered without a TTY fails the tool … NoPromptBackend",
      // unconditionally; a secret's `default` is a display hint, never an answer.
      name: "secret, no human, detached defaults, with a string default → still no_prompt_backend",
      question: passphrase({ default: "hunter2" }),
      humanReachable: false,
      detached: "defaults",
      expected: refuseNoHuman,
    },
    {
      name: "secret, target assistant, human reachable → assistant_routing_denied",
      question: passphrase(),
      config: { target: "assistant" },
      humanReachable: true,
      detached: "auto",
      expected: refuseAssistant,
    },
    {
      name: "secret, target assistant, no human → assistant_routing_denied",
      question: passphrase(),
      config: { target: "assistant" },
      humanReachable: false,
      detached: "auto",
      expected: refuseAssistant,
    },
    {
      name: "secret, config exclusive false, target assistant → still assistant_routing_denied",
      question: passphrase(),
      config: { target: "assistant", exclusive: false },
      humanReachable: true,
      detached: "auto",
      expected: refuseAssistant,
    },
    {
      name: "secret, config exclusive false, no human, auto → still no_prompt_backend",
      question: passphrase(),
      config: { exclusive: false },
      humanReachable: false,
      detached: "auto",
      expected: refuseNoHuman,
    },
    {
      name: "secret, target user, human reachable → prompt",
      question: passphrase(),
      humanReachable: true,
      detached: "deny",
      expected: { type: "prompt" },
    },
    {
      name: "secret with a configured (string) answer → static",
      question: passphrase(),
      config: { answer: "s3cret" },
      humanReachable: false,
      detached: "deny",
      expected: { type: "static", answer: "s3cret" },
    },
  ])("$name", (row) => {
    expect(route(row)).toEqual(row.expected);
  });
});

describe("routeQuestion: RFD 049's detached modes (no human, target user)", () => {
  const valid = (extra: Partial<Question>) => confirm({ default: true, ...extra });
  const invalid = (extra: Partial<Question>) => confirm({ default: "yes", ...extra });
  it.each<[DetachedMode, boolean, "none" | "valid" | "invalid", Decided]>([
    ["auto", false, "none", { type: "inquiry" }],
    ["auto", false, "valid", { type: "inquiry" }],
    ["auto", false, "invalid", { type: "inquiry" }],
    ["auto", true, "none", refuseNoHuman],
    ["auto", true, "valid", refuseNoHuman],
    ["auto", true, "invalid", refuseNoHuman],
    ["defaults", false, "none", refuseNoHuman],
    ["defaults", false, "valid", { type: "default", answer: true }],
    ["defaults", false, "invalid", refuseNoHuman],
    ["defaults", true, "none", refuseNoHuman],
    // `exclusive` forbids answering by an LLM; the question's own default is not an LLM answer.
    ["defaults", true, "valid", { type: "default", answer: true }],
    ["defaults", true, "invalid", refuseNoHuman],
    ["deny", false, "none", refuseNoHuman],
    ["deny", false, "valid", refuseNoHuman],
    ["deny", false, "invalid", refuseNoHuman],
    ["deny", true, "none", refuseNoHuman],
    ["deny", true, "valid", refuseNoHuman],
    ["deny", true, "invalid", refuseNoHuman],
  ])("detached %s, exclusive %s, default %s", (detached, exclusive, dflt, expected) => {
    const extra: Partial<Question> = exclusive ? { exclusive: true } : {};
    const question =
      dflt === "none" ? confirm(extra) : dflt === "valid" ? valid(extra) : invalid(extra);
    expect(route({ name: "", question, humanReachable: false, detached, expected })).toEqual(
      expected,
    );
  });

  it("defaults: a select default outside the options is not valid → refuse", () => {
    const question = pick({ default: "fork" });
    expect(
      route({
        name: "",
        question,
        humanReachable: false,
        detached: "defaults",
        expected: refuseNoHuman,
      }),
    ).toEqual(refuseNoHuman);
  });

  it("defaults: a select default inside the options is used", () => {
    const question = pick({ default: "origin" });
    const expected: Route = { type: "default", answer: "origin" };
    expect(
      route({ name: "", question, humanReachable: false, detached: "defaults", expected }),
    ).toEqual(expected);
  });

  it("a reachable human is prompted whatever the detached mode", () => {
    for (const detached of ["auto", "defaults", "deny"] as const) {
      expect(
        route({
          name: "",
          question: valid({}),
          humanReachable: true,
          detached,
          expected: { type: "prompt" },
        }),
      ).toEqual({ type: "prompt" });
    }
  });
});

describe("routeQuestion: questions.<id>.exclusive overrides the question's own", () => {
  it.each<Row>([
    {
      name: "exclusive question softened by config → target assistant routes to inquiry",
      question: exclusiveConfirm,
      config: { target: "assistant", exclusive: false },
      humanReachable: true,
      detached: "deny",
      expected: { type: "inquiry" },
    },
    {
      name: "exclusive question softened by config → no human, auto routes to inquiry",
      question: exclusiveConfirm,
      config: { exclusive: false },
      humanReachable: false,
      detached: "auto",
      expected: { type: "inquiry" },
    },
    {
      name: "plain question hardened by config → target assistant is denied",
      question: confirm(),
      config: { target: "assistant", exclusive: true },
      humanReachable: true,
      detached: "auto",
      expected: refuseAssistant,
    },
    {
      name: "plain question hardened by config → no human, auto refuses",
      question: confirm(),
      config: { exclusive: true },
      humanReachable: false,
      detached: "auto",
      expected: refuseNoHuman,
    },
    {
      name: "question exclusive:false and config exclusive:true → hardened",
      question: confirm({ exclusive: false }),
      config: { exclusive: true },
      humanReachable: false,
      detached: "auto",
      expected: refuseNoHuman,
    },
  ])("$name", (row) => {
    expect(route(row)).toEqual(row.expected);
  });
});

describe("routeQuestion: remembered answers", () => {
  it.each<Row>([
    {
      name: "remembered, non-secret, persistence turn → remembered (even with no human, deny)",
      question: confirm(),
      remembered: true,
      humanReachable: false,
      detached: "deny",
      expected: { type: "remembered", answer: true },
    },
    {
      name: "remembered, explicit persistence turn → remembered (beats a reachable human)",
      question: confirm({ persistence: "turn" }),
      remembered: false,
      humanReachable: true,
      detached: "deny",
      expected: { type: "remembered", answer: false },
    },
    {
      name: "remembered for an exclusive question (a human gave it) → remembered",
      question: exclusiveConfirm,
      config: { target: "assistant" },
      remembered: true,
      humanReachable: false,
      detached: "auto",
      expected: { type: "remembered", answer: true },
    },
    {
      name: 'remembered but persistence "none" → ignored, the human is asked',
      question: confirm({ persistence: "none" }),
      remembered: true,
      humanReachable: true,
      detached: "deny",
      expected: { type: "prompt" },
    },
    {
      name: 'remembered but persistence "none", no human → ignored, refused',
      question: confirm({ persistence: "none" }),
      remembered: true,
      humanReachable: false,
      detached: "deny",
      expected: refuseNoHuman,
    },
    {
      name: "remembered but the question is secret → ignored, the human is asked",
      question: passphrase(),
      remembered: "old-secret",
      humanReachable: true,
      detached: "deny",
      expected: { type: "prompt" },
    },
    {
      name: "remembered but the question is secret, no human → ignored, refused",
      question: passphrase(),
      remembered: "old-secret",
      humanReachable: false,
      detached: "auto",
      expected: refuseNoHuman,
    },
    {
      name: "a configured answer wins over a remembered one",
      question: confirm(),
      config: { answer: false },
      remembered: true,
      humanReachable: true,
      detached: "deny",
      expected: { type: "static", answer: false },
    },
  ])("$name", (row) => {
    expect(route(row)).toEqual(row.expected);
  });
});

describe("routeQuestion: static answers are validated (RFD 083 step 6)", () => {
  it.each<Row>([
    {
      name: "boolean question, string answer, exclusive",
      question: exclusiveConfirm,
      config: { answer: "yes" },
      humanReachable: true,
      detached: "deny",
      expected: {
        type: "refuse",
        reason: "invalid_static_answer",
        message: invalidStatic("git", "confirm", 'expected true or false, got "yes"'),
      },
    },
    {
      name: "boolean question, string answer, not exclusive, target assistant",
      question: confirm(),
      config: { answer: "yes", target: "assistant" },
      humanReachable: false,
      detached: "auto",
      expected: {
        type: "refuse",
        reason: "invalid_static_answer",
        message: invalidStatic("git", "confirm", 'expected true or false, got "yes"'),
      },
    },
    {
      name: "select question, answer not among the options",
      question: pick({ exclusive: true }),
      config: { answer: "fork" },
      humanReachable: false,
      detached: "deny",
      expected: {
        type: "refuse",
        reason: "invalid_static_answer",
        message: invalidStatic("git", "pick", 'expected one of "origin", "upstream", got "fork"'),
      },
    },
    {
      name: "secret question, non-string answer (the detail names no value)",
      question: passphrase(),
      config: { answer: 1234 },
      humanReachable: true,
      detached: "deny",
      expected: {
        type: "refuse",
        reason: "invalid_static_answer",
        message: invalidStatic("git", "passphrase", "expected a string, got number"),
      },
    },
    {
      name: "an invalid static answer is refused even when a remembered answer exists",
      question: confirm(),
      config: { answer: "yes" },
      remembered: true,
      humanReachable: true,
      detached: "deny",
      expected: {
        type: "refuse",
        reason: "invalid_static_answer",
        message: invalidStatic("git", "confirm", 'expected true or false, got "yes"'),
      },
    },
  ])("$name", (row) => {
    expect(route(row)).toEqual(row.expected);
  });

  it("the message names the tool and the config path of the offending answer", () => {
    const result = routeQuestion({
      toolName: "fs_modify_file",
      question: { id: "apply_changes", text: "Apply?", answer_type: { type: "boolean" } },
      config: { answer: "sure" },
      humanReachable: true,
      detached: "deny",
    });
    expect(result.type === "refuse" && result.message).toContain(
      "fs_modify_file: the configured conversation.tools.fs_modify_file.questions.apply_changes.answer value",
    );
  });
});

describe("routeQuestion: a target given as a map counts as assistant", () => {
  it.each<Row>([
    {
      name: "map target, plain question → inquiry",
      question: confirm(),
      config: { target: { model: "cheap-model" } },
      humanReachable: true,
      detached: "deny",
      expected: { type: "inquiry" },
    },
    {
      name: "map target, exclusive question → assistant_routing_denied",
      question: exclusiveConfirm,
      config: { target: { model: "cheap-model" } },
      humanReachable: true,
      detached: "auto",
      expected: refuseAssistant,
    },
    {
      name: "empty map target, secret question → assistant_routing_denied",
      question: passphrase(),
      config: { target: {} },
      humanReachable: true,
      detached: "auto",
      expected: refuseAssistant,
    },
  ])("$name", (row) => {
    expect(route(row)).toEqual(row.expected);
  });
});

describe("routeQuestion is pure", () => {
  it("gives the same route for the same input, and does not touch its input", () => {
    const input: RouteInput = {
      toolName: "git",
      question: confirm({ default: true }),
      config: { exclusive: false },
      humanReachable: false,
      detached: "defaults",
      remembered: undefined,
    };
    const snapshot = structuredClone(input);
    const first = routeQuestion(input);
    expect(routeQuestion(input)).toEqual(first);
    expect(first).toEqual({ type: "default", answer: true });
    expect(input).toEqual(snapshot);
  });
});
