import type { JsonObject, JsonValue } from "@jp/conversation";
import type { Answers } from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { describe, expect, it } from "vitest";
import { askUser, MISMATCHED_ANSWER } from "../src/index.js";
import { runAskUser } from "./helpers.js";

// What the model receives from one pass of ask_user: the tool is called directly, as the
// coordinator calls it, and the outcome is what becomes the tool_call_response.
async function execute(args: Record<string, unknown>, answers: Answers = {}) {
  return askUser.execute({
    arguments: args as JsonObject,
    answers,
    signal: new AbortController().signal,
  });
}

const invalid = (problem: string) =>
  `ask_user: invalid arguments: ${problem}. Fix the arguments and call ask_user again.`;
const refused = (problem: string) => ({
  type: "error",
  message: invalid(problem),
  trace: [],
  transient: false,
});

const TYPES = '"boolean", "select", "multi_select", "text", "schema"';

describe("RFD 083: single-question argument validation", () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      "question missing",
      {},
      "`question` is required and must be a non-empty string (or send a form in `questions`)",
    ],
    [
      "question missing (other arguments given)",
      { answer_type: "boolean", context: "Deploy plan" },
      "`question` is required and must be a non-empty string (or send a form in `questions`)",
    ],
    [
      "question empty",
      { question: "" },
      "`question` is required and must be a non-empty string (or send a form in `questions`)",
    ],
    [
      "question only whitespace",
      { question: "   " },
      "`question` is required and must be a non-empty string (or send a form in `questions`)",
    ],
    [
      "question a number",
      { question: 42 },
      "`question` is required and must be a non-empty string (or send a form in `questions`)",
    ],
    [
      "question an array",
      { question: ["Apply?"] },
      "`question` is required and must be a non-empty string (or send a form in `questions`)",
    ],
    [
      "question with a newline",
      { question: "Apply the patch?\nIt touches prod." },
      "`question` must be a single line; put multi-line material in `context`",
    ],
    [
      "question with a carriage return",
      { question: "Apply?\r\nSure?" },
      "`question` must be a single line; put multi-line material in `context`",
    ],
    [
      "select without options",
      { question: "Which?", answer_type: "select" },
      '`options` is required when `answer_type` is "select": a non-empty list of strings',
    ],
    [
      "select with empty options",
      { question: "Which?", answer_type: "select", options: [] },
      '`options` is required when `answer_type` is "select": a non-empty list of strings',
    ],
    [
      "options set for boolean",
      { question: "Apply?", answer_type: "boolean", options: ["yes", "no"] },
      '`options` is only allowed when `answer_type` is "select" or "multi_select"; remove it or change `answer_type`',
    ],
    [
      "options set for text",
      { question: "Where?", answer_type: "text", options: ["/tmp"] },
      '`options` is only allowed when `answer_type` is "select" or "multi_select"; remove it or change `answer_type`',
    ],
    [
      "options set with answer_type omitted (text)",
      { question: "Where?", options: ["/tmp"] },
      '`options` is only allowed when `answer_type` is "select" or "multi_select"; remove it or change `answer_type`',
    ],
    [
      "string default for boolean",
      { question: "Apply?", answer_type: "boolean", default: "yes" },
      'default is not a valid answer: expected true or false, got "yes"',
    ],
    [
      'the string "true" as a boolean default',
      { question: "Apply?", answer_type: "boolean", default: "true" },
      'default is not a valid answer: expected true or false, got "true"',
    ],
    [
      "boolean default for select",
      {
        question: "Which?",
        answer_type: "select",
        options: ["backup", "overwrite"],
        default: true,
      },
      'default is not a valid answer: expected one of "backup", "overwrite", got true',
    ],
    [
      "number default for text",
      { question: "Where?", answer_type: "text", default: 42 },
      "default is not a valid answer: expected a string, got 42",
    ],
    [
      "default not in options",
      {
        question: "Which?",
        answer_type: "select",
        options: ["backup", "overwrite"],
        default: "abort",
      },
      'default is not a valid answer: expected one of "backup", "overwrite", got "abort"',
    ],
    [
      "unknown answer_type",
      { question: "How many?", answer_type: "number" },
      `\`answer_type\` must be one of ${TYPES}; got "number"`,
    ],
    [
      "answer_type secret (not offered: ask_user must not collect secrets)",
      { question: "Password?", answer_type: "secret" },
      `\`answer_type\` must be one of ${TYPES}; got "secret"`,
    ],
    [
      "answer_type not a string",
      { question: "Apply?", answer_type: 1 },
      `\`answer_type\` must be one of ${TYPES}; got 1`,
    ],
    [
      "context not a string",
      { question: "Apply?", context: ["diff"] },
      "`context` must be a string",
    ],
    [
      "both question and questions",
      { question: "Apply?", questions: [{ id: "a", text: "A?", answer_type: "boolean" }] },
      "give either `question` (one question) or `questions` (a form), not both",
    ],
  ])("%s", async (_name, args, problem) => {
    expect(await execute(args)).toEqual(refused(problem));
  });

  it("names the model's own `schema` argument when the schema does not compile", async () => {
    const outcome = await execute({
      question: "Config?",
      answer_type: "schema",
      schema: { type: "nonsense" },
    });
    expect(outcome.type).toBe("error");
    // The model wrote `schema`; there is no `answer_type.schema` in its arguments.
    expect((outcome as { message: string }).message).toMatch(
      /^ask_user: invalid arguments: `?schema`? does not compile: .+\. Fix the arguments and call ask_user again\.$/,
    );
  });

  it("refuses an `$async` schema, which would let any answer through", async () => {
    const outcome = await execute({
      question: "How many replicas?",
      answer_type: "schema",
      schema: { $async: true, type: "integer" },
      default: "many",
    });
    expect(outcome).toEqual(
      refused(
        'schema does not compile: asynchronous schemas ("$async": true) are not supported: remove "$async" so an answer can be checked at once',
      ),
    );
  });

  it("names the model's own `options` argument when an option is listed twice", async () => {
    const outcome = await execute({
      question: "Which?",
      answer_type: "select",
      options: ["backup", "backup"],
    });
    expect(outcome.type).toBe("error");
    const { message } = outcome as { message: string };
    expect(message).not.toContain("answer_type.options");
    expect(message).toMatch(/^ask_user: invalid arguments: .*"backup".* `?options`?/);
  });
});

const form = (...questions: unknown[]) => ({ questions });
const apply = { id: "apply", text: "Apply the migration?", answer_type: "boolean" };

describe("RFD D30: submit-time validation of a form", () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      "questions a string",
      { questions: "apply" },
      "`questions` must be a non-empty array of questions",
    ],
    [
      "questions an object",
      { questions: { apply } },
      "`questions` must be a non-empty array of questions",
    ],
    [
      "questions null (a provider's unused optional argument) reads as absent",
      { questions: null },
      "`question` is required and must be a non-empty string (or send a form in `questions`)",
    ],
    ["questions empty", { questions: [] }, "`questions` must be a non-empty array of questions"],
    [
      "entry a string",
      form("Apply?"),
      "questions[0] must be an object with `id`, `text` and `answer_type`",
    ],
    [
      "entry null (second)",
      form(apply, null),
      "questions[1] must be an object with `id`, `text` and `answer_type`",
    ],
    [
      "entry an array",
      form([apply]),
      "questions[0] must be an object with `id`, `text` and `answer_type`",
    ],
    [
      "id missing",
      form({ text: "Apply?", answer_type: "boolean" }),
      "questions[0].id is required and must be a non-empty string",
    ],
    [
      "id empty",
      form({ id: "", text: "Apply?", answer_type: "boolean" }),
      "questions[0].id is required and must be a non-empty string",
    ],
    [
      "id a number",
      form({ id: 1, text: "Apply?", answer_type: "boolean" }),
      "questions[0].id is required and must be a non-empty string",
    ],
    [
      "text missing",
      form({ id: "apply", answer_type: "boolean" }),
      "questions[0].text is required and must be a non-empty string",
    ],
    [
      "text empty",
      form(apply, { id: "env", text: " ", answer_type: "text" }),
      "questions[1].text is required and must be a non-empty string",
    ],
    [
      "text with a newline",
      form({ id: "apply", text: "Apply?\nReally?", answer_type: "boolean" }),
      "questions[0].text must be a single line; put multi-line material in `context`",
    ],
    [
      "answer_type missing",
      form({ id: "apply", text: "Apply?" }),
      `questions[0].answer_type is required: one of ${TYPES}`,
    ],
    [
      "answer_type unknown",
      form({ id: "when", text: "When?", answer_type: "date" }),
      `\`questions[0].answer_type\` must be one of ${TYPES}; got "date"`,
    ],
    [
      "duplicate id",
      form(apply, { id: "apply", text: "Really apply?", answer_type: "boolean" }),
      'questions[1].id "apply" is used by an earlier question; every id must be unique',
    ],
    [
      'id with "."',
      form({ id: "env.name", text: "Env?", answer_type: "text" }),
      'questions[0].id "env.name" may only contain letters, digits, "_" and "-"',
    ],
    [
      "id with a space",
      form({ id: "target env", text: "Env?", answer_type: "text" }),
      'questions[0].id "target env" may only contain letters, digits, "_" and "-"',
    ],
    [
      'id "*" (the config wildcard)',
      form({ id: "*", text: "Env?", answer_type: "text" }),
      'questions[0].id "*" may only contain letters, digits, "_" and "-"',
    ],
    [
      "select without options",
      form({ id: "env", text: "Env?", answer_type: "select" }),
      '`questions[0].options` is required when `answer_type` is "select": a non-empty list of strings',
    ],
    [
      "multi_select without options",
      form({ id: "envs", text: "Envs?", answer_type: "multi_select" }),
      '`questions[0].options` is required when `answer_type` is "multi_select": a non-empty list of strings',
    ],
    [
      "multi_select with empty options",
      form({ id: "envs", text: "Envs?", answer_type: "multi_select", options: [] }),
      '`questions[0].options` is required when `answer_type` is "multi_select": a non-empty list of strings',
    ],
    [
      "options on a boolean",
      form({ ...apply, options: ["y", "n"] }),
      '`questions[0].options` is only allowed when `answer_type` is "select" or "multi_select"; remove it or change `answer_type`',
    ],
    [
      "options on a text",
      form(apply, { id: "note", text: "Note?", answer_type: "text", options: ["none"] }),
      '`questions[1].options` is only allowed when `answer_type` is "select" or "multi_select"; remove it or change `answer_type`',
    ],
    [
      "options on a schema",
      form({ id: "cfg", text: "Config?", answer_type: "schema", schema: {}, options: ["a"] }),
      '`questions[0].options` is only allowed when `answer_type` is "select" or "multi_select"; remove it or change `answer_type`',
    ],
    [
      "schema answer_type without schema",
      form({ id: "cfg", text: "Config?", answer_type: "schema" }),
      '`questions[0].schema` is required when `answer_type` is "schema": a JSON Schema object',
    ],
    [
      "schema answer_type with an array schema",
      form({ id: "cfg", text: "Config?", answer_type: "schema", schema: [] }),
      '`questions[0].schema` is required when `answer_type` is "schema": a JSON Schema object',
    ],
    [
      "schema on a text",
      form({ id: "note", text: "Note?", answer_type: "text", schema: { type: "string" } }),
      '`questions[0].schema` is only allowed when `answer_type` is "schema"; remove it or change `answer_type`',
    ],
    [
      "schema on a select",
      form({ id: "env", text: "Env?", answer_type: "select", options: ["a"], schema: {} }),
      '`questions[0].schema` is only allowed when `answer_type` is "schema"; remove it or change `answer_type`',
    ],
    [
      "when referencing a later id",
      form(
        apply,
        {
          id: "env",
          text: "Env?",
          answer_type: "text",
          when: { question_id: "note", equals: "x" },
        },
        { id: "note", text: "Note?", answer_type: "text" },
      ),
      'questions[1].when.question_id "note" does not name an earlier question (earlier ids: apply); a `when` may only refer to questions before it',
    ],
    [
      "when on the first question",
      form(
        { ...apply, when: { question_id: "env", equals: true } },
        { id: "env", text: "Env?", answer_type: "text" },
      ),
      'questions[0].when.question_id "env" does not name an earlier question (there are no earlier questions); a `when` may only refer to questions before it',
    ],
    [
      "when referencing an unknown id",
      form(apply, {
        id: "env",
        text: "Env?",
        answer_type: "text",
        when: { question_id: "aply", equals: true },
      }),
      'questions[1].when.question_id "aply" does not name an earlier question (earlier ids: apply); a `when` may only refer to questions before it',
    ],
    [
      "when referencing itself",
      form(apply, {
        id: "env",
        text: "Env?",
        answer_type: "text",
        when: { question_id: "env", equals: "a" },
      }),
      'questions[1].when.question_id "env" does not name an earlier question (earlier ids: apply); a `when` may only refer to questions before it',
    ],
    [
      "when a string",
      form(apply, { id: "env", text: "Env?", answer_type: "text", when: "apply" }),
      'questions[1].when must be {"question_id": <an earlier question\'s id>, "equals": <value>}',
    ],
    [
      "when without equals",
      form(apply, { id: "env", text: "Env?", answer_type: "text", when: { question_id: "apply" } }),
      'questions[1].when must be {"question_id": <an earlier question\'s id>, "equals": <value>}',
    ],
    [
      "when with a non-string question_id",
      form(apply, {
        id: "env",
        text: "Env?",
        answer_type: "text",
        when: { question_id: 0, equals: true },
      }),
      'questions[1].when must be {"question_id": <an earlier question\'s id>, "equals": <value>}',
    ],
    [
      "multi_select default not an array",
      form({
        id: "envs",
        text: "Envs?",
        answer_type: "multi_select",
        options: ["a", "b"],
        default: "a",
      }),
      'questions[0].default is not a valid answer: expected an array of distinct choices from "a", "b", got "a"',
    ],
    [
      "multi_select default with an unknown option",
      form({
        id: "envs",
        text: "Envs?",
        answer_type: "multi_select",
        options: ["a", "b"],
        default: ["c"],
      }),
      'questions[0].default is not a valid answer: item 0: expected one of "a", "b", got "c"',
    ],
    [
      "boolean default of the wrong type in a form",
      form({ ...apply, default: "no" }),
      'questions[0].default is not a valid answer: expected true or false, got "no"',
    ],
    [
      "context not a string in a form",
      form({ ...apply, context: 3 }),
      "`questions[0].context` must be a string",
    ],
  ])("%s", async (_name, args, problem) => {
    expect(await execute(args)).toEqual(refused(problem));
  });

  it("names the model's own `questions[i].schema` argument when the schema does not compile", async () => {
    const outcome = await execute(
      form(apply, {
        id: "cfg",
        text: "Config?",
        answer_type: "schema",
        schema: { type: "nonsense" },
      }),
    );
    expect(outcome.type).toBe("error");
    expect((outcome as { message: string }).message).toMatch(
      /^ask_user: invalid arguments: `?questions\[1\]\.schema`? does not compile: .+\. Fix the arguments and call ask_user again\.$/,
    );
  });
});

const human = { exclusive: true, persistence: "none" } as const;

describe("valid arguments ask their first question", () => {
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    [
      "boolean",
      { question: "Apply the migration?", answer_type: "boolean" },
      { text: "Apply the migration?", answer_type: { type: "boolean" } },
    ],
    [
      "select with a default and context",
      {
        question: "Apply how?",
        context: "The migration rewrites prod config.\nA backup takes 2 minutes.",
        answer_type: "select",
        options: ["backup", "overwrite", "abort"],
        default: "backup",
      },
      {
        text: "Apply how?",
        context: "The migration rewrites prod config.\nA backup takes 2 minutes.",
        answer_type: { type: "select", options: ["backup", "overwrite", "abort"] },
        default: "backup",
      },
    ],
    [
      "text (explicit)",
      { question: "Target directory?", answer_type: "text", default: "/tmp/output" },
      { text: "Target directory?", answer_type: { type: "text" }, default: "/tmp/output" },
    ],
    [
      "text (answer_type omitted)",
      { question: "Target directory?" },
      { text: "Target directory?", answer_type: { type: "text" } },
    ],
    [
      "multi_select",
      { question: "Which envs?", answer_type: "multi_select", options: ["staging", "prod"] },
      { text: "Which envs?", answer_type: { type: "multi_select", options: ["staging", "prod"] } },
    ],
    [
      "schema",
      { question: "Config?", answer_type: "schema", schema: { type: "object" } },
      { text: "Config?", answer_type: { type: "schema", schema: { type: "object" } } },
    ],
    [
      "default null read as no default",
      { question: "Apply?", answer_type: "boolean", default: null },
      { text: "Apply?", answer_type: { type: "boolean" } },
    ],
  ])(
    "single %s: question `answer`, human-only, never remembered",
    async (_name, args, question) => {
      expect(await execute(args)).toEqual({
        type: "needs_input",
        question: { id: "answer", ...question, ...human },
        form: { index: 1, total: 1 },
      });
    },
  );

  const formOf: [string, Record<string, unknown>, JsonValue][] = [
    ["boolean", { answer_type: "boolean" }, true],
    ["select", { answer_type: "select", options: ["staging", "prod"] }, "prod"],
    ["multi_select", { answer_type: "multi_select", options: ["a", "b", "c"] }, ["a", "c"]],
    ["text", { answer_type: "text" }, "nightly run"],
    [
      "schema",
      { answer_type: "schema", schema: { type: "object", required: ["port"] } },
      { port: 8080 },
    ],
  ];

  it.each(formOf)(
    "a %s question in a form is asked with its place in the form, then returned",
    async (_name, spec, answer) => {
      const args = form(
        { id: "first", text: "First?", ...spec },
        { id: "second", text: "Second?", answer_type: "text", default: "none" },
      );
      const { answer_type: _type, options: _options, schema: _schema, ...rest } = spec;
      expect(await execute(args)).toEqual({
        type: "needs_input",
        question: {
          id: "first",
          text: "First?",
          answer_type: {
            type: spec.answer_type,
            ...(spec.options === undefined ? {} : { options: spec.options }),
            ...(spec.schema === undefined ? {} : { schema: spec.schema }),
          },
          ...rest,
          ...human,
        },
        form: { index: 1, total: 2 },
      });
      expect(await execute(args, { first: answer })).toEqual({
        type: "needs_input",
        question: {
          id: "second",
          text: "Second?",
          answer_type: { type: "text" },
          default: "none",
          ...human,
        },
        form: { index: 2, total: 2 },
      });
      expect(await execute(args, { first: answer, second: "done" })).toEqual({
        type: "success",
        content: JSON.stringify({ first: answer, second: "done" }),
      });
    },
  );

  it("counts skipped questions in the progress total and answers them null", async () => {
    const args = form(
      apply,
      {
        id: "env",
        text: "Env?",
        answer_type: "select",
        options: ["staging", "prod"],
        when: { question_id: "apply", equals: true },
      },
      { id: "note", text: "Note?", answer_type: "text" },
    );
    expect(await execute(args, { apply: false })).toMatchObject({
      type: "needs_input",
      question: { id: "note" },
      form: { index: 3, total: 3 },
    });
    expect(await execute(args, { apply: false, note: "later" })).toEqual({
      type: "success",
      content: '{"apply":false,"env":null,"note":"later"}',
    });
  });
});

describe("RFD 083: the second pass checks the accumulated answer", () => {
  it.each<[string, Record<string, unknown>, Answers]>([
    ["a string for a boolean", { question: "Apply?", answer_type: "boolean" }, { answer: "yes" }],
    [
      "a select answer not in options",
      { question: "How?", answer_type: "select", options: ["backup", "overwrite"] },
      { answer: "abort" },
    ],
    ["a number for a text", { question: "Where?" }, { answer: 7 }],
    [
      "a form answer of the wrong type",
      form(apply, { id: "note", text: "Note?", answer_type: "text" }),
      { apply: "true" },
    ],
  ])("%s fails with the generic message", async (_name, args, answers) => {
    expect(MISMATCHED_ANSWER).toBe(
      "ask_user: the accumulated answer does not match the requested answer type.",
    );
    expect(await execute(args, answers)).toEqual({
      type: "error",
      message: MISMATCHED_ANSWER,
      trace: [],
      transient: false,
    });
  });

  it.each<[string, Record<string, unknown>, JsonValue, string]>([
    [
      "boolean",
      { question: "Apply?", answer_type: "boolean" },
      true,
      '{"answer_type":"boolean","answer":true}',
    ],
    [
      "select",
      { question: "How?", answer_type: "select", options: ["backup", "overwrite", "abort"] },
      "backup",
      '{"answer_type":"select","answer":"backup"}',
    ],
    [
      "text",
      { question: "Where?", answer_type: "text" },
      "/tmp/output",
      '{"answer_type":"text","answer":"/tmp/output"}',
    ],
  ])("%s succeeds with RFD 083's typed body", async (_name, args, answer, body) => {
    expect(await execute(args, { answer })).toEqual({ type: "success", content: body });
  });
});

describe("null optional arguments (sent by some providers) read as absent", () => {
  const signal = new AbortController().signal;
  it.each([
    ["context", { question: "Go?", context: null }],
    ["options on a boolean", { question: "Go?", answer_type: "boolean", options: null }],
    ["schema on a text", { question: "Name?", answer_type: "text", schema: null }],
    ["answer_type", { question: "Name?", answer_type: null }],
    ["questions beside question", { question: "Go?", questions: null }],
    [
      "options and when in a form entry",
      { questions: [{ id: "a", text: "Go?", answer_type: "boolean", options: null, when: null }] },
    ],
  ])("%s: null", async (_name, args) => {
    const outcome = await askUser.execute({ arguments: args as never, answers: {}, signal });
    expect(outcome.type).toBe("needs_input");
  });
});

const SINGLE_ACCEPTS =
  "ask_user accepts `question`, `context`, `answer_type`, `options`, `schema` and `default`, or a form in `questions`";
const ENTRY_ACCEPTS =
  "a question in `questions` accepts `id`, `text`, `context`, `answer_type`, `options`, `schema`, `default` and `when`";
const CHOICES = 'for a list of choices, use `answer_type: "select"` with `options`';

describe("unknown arguments are refused by name, with the accepted ones", () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      "Opal's shape: `choices` instead of a select",
      { question: "Deploy where?", choices: ["staging", "prod"] },
      `unknown argument \`choices\` (${CHOICES}); ${SINGLE_ACCEPTS}`,
    ],
    [
      "`choices` beside a correct select",
      { question: "Where?", answer_type: "select", options: ["a"], choices: ["a"] },
      `unknown argument \`choices\` (${CHOICES}); ${SINGLE_ACCEPTS}`,
    ],
    [
      "`type` instead of `answer_type`",
      { question: "Apply?", type: "boolean" },
      `unknown argument \`type\` (the kind of answer goes in \`answer_type\`); ${SINGLE_ACCEPTS}`,
    ],
    [
      "`text` instead of `question` (the form field, in a single question)",
      { text: "Apply?" },
      `unknown argument \`text\` (the question goes in \`question\`); ${SINGLE_ACCEPTS}`,
    ],
    [
      "an unknown argument is named before the missing `question`",
      { prompt: "Apply?" },
      `unknown argument \`prompt\`; ${SINGLE_ACCEPTS}`,
    ],
    [
      "two unknown arguments, one with a hint",
      { question: "Where?", choices: ["a"], multiple: true },
      `unknown arguments \`choices\`, \`multiple\` (${CHOICES}); ${SINGLE_ACCEPTS}`,
    ],
    [
      "more than five unknown arguments: the first five, and how many more",
      { question: "Go?", a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 },
      `unknown arguments \`a\`, \`b\`, \`c\`, \`d\`, \`e\` and 2 more; ${SINGLE_ACCEPTS}`,
    ],
    [
      "a key that is not a plain name is quoted as JSON",
      { question: "Go?", "opt`ions\n": [] },
      `unknown argument "opt\`ions\\n"; ${SINGLE_ACCEPTS}`,
    ],
    [
      "a very long key is cut",
      { question: "Go?", ["k".repeat(200)]: 1 },
      `unknown argument "${"k".repeat(80)}…"; ${SINGLE_ACCEPTS}`,
    ],
    [
      "a key named like an Object.prototype member gets no hint",
      { question: "Go?", constructor: 1 },
      `unknown argument \`constructor\`; ${SINGLE_ACCEPTS}`,
    ],
    [
      "a `__proto__` key from parsed JSON",
      JSON.parse('{"question": "Go?", "__proto__": {"x": 1}}'),
      `unknown argument \`__proto__\`; ${SINGLE_ACCEPTS}`,
    ],
    [
      "a single question's argument beside `questions`",
      { questions: [apply], context: "The plan." },
      "`context` is not accepted beside `questions`: a form takes only `questions`; put each question's `context`, `answer_type`, `options`, `schema` and `default` inside its entry",
    ],
    [
      "several arguments beside `questions`",
      { questions: [apply], answer_type: "boolean", choices: ["a"] },
      "`answer_type`, `choices` are not accepted beside `questions`: a form takes only `questions`; put each question's `context`, `answer_type`, `options`, `schema` and `default` inside its entry",
    ],
    [
      "`choices` in a form question",
      form(apply, { id: "env", text: "Env?", answer_type: "text", choices: ["a", "b"] }),
      `unknown argument \`questions[1].choices\` (${CHOICES}); ${ENTRY_ACCEPTS}`,
    ],
    [
      "`question` instead of `text` in a form question",
      form({ id: "apply", question: "Apply?", answer_type: "boolean" }),
      `unknown argument \`questions[0].question\` (a form question goes in \`text\`); ${ENTRY_ACCEPTS}`,
    ],
    [
      "`type` and `required` in a form question",
      form({ id: "apply", text: "Apply?", answer_type: "boolean", type: "x", required: true }),
      `unknown arguments \`questions[0].type\`, \`questions[0].required\` (the kind of answer goes in \`answer_type\`); ${ENTRY_ACCEPTS}`,
    ],
    [
      "another operator in a `when`",
      form(apply, {
        id: "env",
        text: "Env?",
        answer_type: "text",
        when: { question_id: "apply", equals: true, not_equals: false },
      }),
      "unknown argument `questions[1].when.not_equals`; a `when` accepts only `question_id` and `equals` (an answer equal to `equals` asks the question)",
    ],
  ])("%s", async (_name, args, problem) => {
    expect(await execute(args)).toEqual(refused(problem));
  });

  it.each([
    ["an unknown argument", { question: "Go?", choices: null }],
    ["an argument beside `questions`", { questions: [apply], context: null, answer_type: null }],
    ["an unknown field of a form question", form({ ...apply, choices: null })],
    [
      "an unknown field of a `when`",
      form(apply, { ...apply, id: "b", when: { question_id: "apply", equals: true, op: null } }),
    ],
  ])("%s that is null reads as absent", async (_name, args) => {
    expect((await execute(args)).type).toBe("needs_input");
  });

  it("Opal's shape through a coordinator: the model reads the error, nobody is asked", async () => {
    const human = new MockPromptBackend({});
    const { response, trail } = await runAskUser(
      { question: "Deploy where?", choices: ["staging", "prod"] },
      { prompts: human },
    );
    expect(response.is_error).toBe(true);
    expect(response.content).toBe(
      invalid(`unknown argument \`choices\` (${CHOICES}); ${SINGLE_ACCEPTS}`),
    );
    expect(human.requests).toEqual([]);
    expect(trail).toEqual([]);
  });
});

const perms = {
  id: "perms",
  text: "Permissions?",
  answer_type: "multi_select",
  options: ["r", "w", "x"],
};
const env = { id: "env", text: "Env?", answer_type: "select", options: ["staging", "prod"] };
const gated = (when: Record<string, unknown>) => ({
  id: "next",
  text: "Next?",
  answer_type: "text",
  when,
});

describe("`when` gates that can never open are refused", () => {
  it.each<[string, unknown[], string]>([
    [
      "a string for a boolean",
      [apply, gated({ question_id: "apply", equals: "yes" })],
      'questions[1].when.equals can never match: "apply" is a boolean question (expected true or false, got "yes"), so "next" would never be asked',
    ],
    [
      'the string "true" for a boolean',
      [apply, gated({ question_id: "apply", equals: "true" })],
      'questions[1].when.equals can never match: "apply" is a boolean question (expected true or false, got "true"), so "next" would never be asked',
    ],
    [
      "a value not among a select's options",
      [env, gated({ question_id: "env", equals: "dev" })],
      'questions[1].when.equals can never match: "env" is a select question (expected one of "staging", "prod", got "dev"), so "next" would never be asked',
    ],
    [
      "an option of a select in another case",
      [env, gated({ question_id: "env", equals: "Prod" })],
      'questions[1].when.equals can never match: "env" is a select question (expected one of "staging", "prod", got "Prod"), so "next" would never be asked',
    ],
    [
      "a boolean for a select",
      [env, gated({ question_id: "env", equals: true })],
      'questions[1].when.equals can never match: "env" is a select question (expected one of "staging", "prod", got true), so "next" would never be asked',
    ],
    [
      "one choice, not a list, for a multi_select",
      [perms, gated({ question_id: "perms", equals: "w" })],
      'questions[1].when.equals can never match: "perms" is a multi_select question, compared as a set (expected an array of distinct choices from "r", "w", "x", got "w"), so "next" would never be asked',
    ],
    [
      "a choice not among a multi_select's options",
      [perms, gated({ question_id: "perms", equals: ["r", "admin"] })],
      'questions[1].when.equals can never match: "perms" is a multi_select question, compared as a set (item 1: expected one of "r", "w", "x", got "admin"), so "next" would never be asked',
    ],
    [
      "a choice listed twice for a multi_select",
      [perms, gated({ question_id: "perms", equals: ["w", "w"] })],
      'questions[1].when.equals can never match: "perms" is a multi_select question, compared as a set (item 1: "w" is chosen twice; each choice may appear only once), so "next" would never be asked',
    ],
    [
      "a number for a text",
      [
        { id: "name", text: "Name?", answer_type: "text" },
        gated({ question_id: "name", equals: 7 }),
      ],
      'questions[1].when.equals can never match: "name" is a text question (expected a string, got 7), so "next" would never be asked',
    ],
    [
      "a value the schema rejects",
      [
        { id: "cfg", text: "Config?", answer_type: "schema", schema: { type: "integer" } },
        gated({ question_id: "cfg", equals: "8080" }),
      ],
      'questions[1].when.equals can never match: "cfg" is a schema question (does not match the JSON Schema: (root): must be integer), so "next" would never be asked',
    ],
    [
      "null for a question that is always asked",
      [apply, gated({ question_id: "apply", equals: null })],
      'questions[1].when.equals is null, which matches only a question skipped by its own `when`, but "apply" has no `when` and is always answered, so "next" would never be asked',
    ],
    [
      "a bad gate on a later question names that question",
      [apply, env, { ...gated({ question_id: "env", equals: "qa" }), id: "third" }],
      'questions[2].when.equals can never match: "env" is a select question (expected one of "staging", "prod", got "qa"), so "third" would never be asked',
    ],
  ])("%s", async (_name, questions, problem) => {
    expect(await execute(form(...questions))).toEqual(refused(problem));
  });

  it.each<[string, unknown[]]>([
    ["true for a boolean", [apply, gated({ question_id: "apply", equals: true })]],
    ["an option of a select", [env, gated({ question_id: "env", equals: "prod" })]],
    ["choices of a multi_select", [perms, gated({ question_id: "perms", equals: ["w", "r"] })]],
    ["no choice of a multi_select", [perms, gated({ question_id: "perms", equals: [] })]],
    ["any string for a text", [env, gated({ question_id: "env", equals: "staging" })]],
    [
      "null for a question that can be skipped",
      [
        apply,
        { ...env, when: { question_id: "apply", equals: true } },
        gated({ question_id: "env", equals: null }),
      ],
    ],
  ])("accepts %s", async (_name, questions) => {
    expect((await execute(form(...questions))).type).toBe("needs_input");
  });
});

describe("a multi_select answer opens a gate as a set", () => {
  const args = form(perms, gated({ question_id: "perms", equals: ["w", "r"] }));

  it.each<[string, JsonValue, boolean]>([
    ["the same order", ["w", "r"], true],
    ["the other order", ["r", "w"], true],
    ["a subset", ["r"], false],
    ["a superset", ["r", "w", "x"], false],
    ["the same size, another choice", ["r", "x"], false],
    ["no choice", [], false],
  ])("%s", async (_name, answer, asked) => {
    const outcome = await execute(args, { perms: answer });
    if (asked) expect(outcome).toMatchObject({ type: "needs_input", question: { id: "next" } });
    else
      expect(outcome).toEqual({
        type: "success",
        content: JSON.stringify({ perms: answer, next: null }),
      });
  });

  it("an empty list opens only on no choice", async () => {
    const empty = form(perms, gated({ question_id: "perms", equals: [] }));
    expect(await execute(empty, { perms: [] })).toMatchObject({ type: "needs_input" });
    expect(await execute(empty, { perms: ["r"] })).toMatchObject({ type: "success" });
  });

  it("null opens on a question that was skipped", async () => {
    const chain = form(
      apply,
      { ...env, when: { question_id: "apply", equals: true } },
      gated({ question_id: "env", equals: null }),
    );
    expect(await execute(chain, { apply: false })).toMatchObject({
      type: "needs_input",
      question: { id: "next" },
    });
    expect(await execute(chain, { apply: true, env: "prod" })).toEqual({
      type: "success",
      content: JSON.stringify({ apply: true, env: "prod", next: null }),
    });
  });
});

describe("a refusal quotes the model's arguments, not all of them", () => {
  const long = "x".repeat(100_000);
  const many = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ id: `q${i}`, text: "Go?", answer_type: "boolean" }));
  const options = Array.from({ length: 1_000 }, (_, i) => `option-${i}`);

  it.each<[string, Record<string, unknown>, string]>([
    [
      "an id with a bad character",
      form({ id: `${long} `, text: "Go?", answer_type: "text" }),
      'questions[0].id "xxx',
    ],
    [
      "an unknown answer type",
      { question: "Go?", answer_type: long },
      "`answer_type` must be one of",
    ],
    [
      "a `when` naming no earlier question of a long form",
      form(...many(1_000), {
        id: "z",
        text: "Go?",
        when: { question_id: "nope", equals: true },
        answer_type: "text",
      }),
      'questions[1000].when.question_id "nope" does not name an earlier question (earlier ids: q0, q1,',
    ],
    [
      "a `when` naming a long id",
      form(apply, {
        id: "z",
        text: "Go?",
        answer_type: "text",
        when: { question_id: long, equals: true },
      }),
      'questions[1].when.question_id "xxx',
    ],
    [
      "a default among a thousand options",
      { question: "Which?", answer_type: "select", options, default: "none" },
      'default is not a valid answer: expected one of "option-0", "option-1",',
    ],
  ])("%s", async (_name, args, start) => {
    const outcome = await execute(args);
    const { message } = outcome as { message: string };
    expect(message.startsWith(`ask_user: invalid arguments: ${start}`)).toBe(true);
    expect(message.length).toBeLessThan(600);
  });

  it("counts the earlier ids it does not name", async () => {
    const outcome = await execute(
      form(...many(30), {
        id: "z",
        text: "Go?",
        answer_type: "text",
        when: { question_id: "q", equals: true },
      }),
    );
    expect((outcome as { message: string }).message).toContain(
      `(earlier ids: ${Array.from({ length: 20 }, (_, i) => `q${i}`).join(", ")} and 10 more)`,
    );
  });
});

// Whether text holds no lone surrogate (what String.prototype.isWellFormed, ES2024, tells).
const isWellFormed = (text: string) => !/\p{Cs}/u.test(text);

describe("a refusal's quote keeps every character whole", () => {
  // A quote is cut at 80 characters (code points); an emoji is two UTF-16 code units, and half
  // of one would make the tool result invalid JSON text for the provider and for JP.
  const PADDED =
    "`options` must not start or end with whitespace, which a person cannot see or type back as shown: send `options[0]` as";
  const padded = (option: string) => ({
    question: "Which?",
    answer_type: "select",
    options: [`${option} `, "no"],
  });
  const message = async (args: Record<string, unknown>) =>
    ((await execute(args)) as { message: string }).message;

  it("an 81-character option made of emoji is quoted well-formed, ending in …", async () => {
    const text = await message(padded(`a${"😀".repeat(80)}`));
    expect(isWellFormed(text)).toBe(true);
    expect(text).toBe(invalid(`${PADDED} "a${"😀".repeat(77)}…`));
  });

  it.each([
    // The quote's 80th code unit: the opening quote and 78 more come before it.
    ["just before an emoji", `${"x".repeat(78)}😀😀`, `"${"x".repeat(78)}…`],
    ["inside an emoji", `${"x".repeat(77)}😀😀`, `"${"x".repeat(77)}😀…`],
    ["just after an emoji", `${"x".repeat(76)}😀xxxx`, `"${"x".repeat(76)}😀x…`],
  ])("a quote cut %s is well-formed", async (_name, option, quote) => {
    const text = await message(padded(option));
    expect(isWellFormed(text)).toBe(true);
    expect(text).toBe(invalid(`${PADDED} ${quote}`));
  });

  it("a long unknown argument made of emoji is quoted whole, not as an escaped half", async () => {
    const text = await message({ question: "Go?", [`a${"😀".repeat(100)}`]: 1 });
    expect(text).not.toMatch(/\\u[dD][89abAB]/);
    expect(text).toBe(invalid(`unknown argument "a${"😀".repeat(79)}…"; ${SINGLE_ACCEPTS}`));
  });
});

describe("options a person can see and type back", () => {
  const select = (options: unknown[], extra: Record<string, unknown> = {}) => ({
    question: "Which?",
    answer_type: "select",
    options,
    ...extra,
  });
  const BLANK = "`options` must not hold blank options, which a person cannot see or pick: remove";
  const PADDED =
    "`options` must not start or end with whitespace, which a person cannot see or type back as shown: send";

  it.each<[string, Record<string, unknown>, string]>([
    ["an empty option", select(["yes", ""]), `${BLANK} \`options[1]\``],
    ["an option of spaces only", select(["   ", "no"]), `${BLANK} \`options[0]\``],
    [
      "an option of a tab and a line break only",
      select(["yes", "\t\n"]),
      `${BLANK} \`options[1]\``,
    ],
    [
      "several blank options, named together",
      select(["", "yes", " ", "no", "\u00a0"]),
      `${BLANK} \`options[0]\`, \`options[2]\` and \`options[4]\``,
    ],
    [
      "an option with spaces around it",
      select([" yes ", "no"]),
      `${PADDED} \`options[0]\` as "yes"`,
    ],
    ["an option with a trailing space", select(["yes", "no "]), `${PADDED} \`options[1]\` as "no"`],
    ["an option with a leading tab", select(["\tyes", "no"]), `${PADDED} \`options[0]\` as "yes"`],
    [
      "several padded options, each with its fix",
      select([" yes", "maybe", "no "]),
      `${PADDED} \`options[0]\` as "yes" and \`options[2]\` as "no"`,
    ],
    [
      "options that differ only by whitespace",
      select(["yes", "yes ", "no"]),
      '`options[0]` "yes" and `options[1]` "yes " differ only by leading or trailing whitespace, which a person cannot see: keep one, without the whitespace',
    ],
    [
      "padded options that differ only by whitespace",
      select([" yes", "yes "]),
      '`options[0]` " yes" and `options[1]` "yes " differ only by leading or trailing whitespace, which a person cannot see: keep one, without the whitespace',
    ],
    [
      "options that are the same letters in other code points",
      select(["caf\u00e9", "cafe\u0301", "tea"]),
      '`options[0]` "caf\u00e9" and `options[1]` "cafe\u0301" are the same text written with different Unicode code points (a composed and a decomposed accent, for example), which a person cannot tell apart: keep one',
    ],
    [
      "look-alike options of a multi_select in a form",
      form({
        id: "name",
        text: "Name?",
        answer_type: "multi_select",
        options: ["A\u030a", "\u00c5", "B"],
      }),
      '`questions[0].options[0]` "A\u030a" and `questions[0].options[1]` "\u00c5" are the same text written with different Unicode code points (a composed and a decomposed accent, for example), which a person cannot tell apart: keep one',
    ],
    [
      "a blank option of a multi_select",
      { question: "Which?", answer_type: "multi_select", options: ["a", " "] },
      `${BLANK} \`options[1]\``,
    ],
    [
      "a padded option of a multi_select",
      { question: "Which?", answer_type: "multi_select", options: ["a ", "b"] },
      `${PADDED} \`options[0]\` as "a"`,
    ],
    [
      "a padded option that is also the default",
      select([" yes ", "no"], { default: " yes " }),
      `${PADDED} \`options[0]\` as "yes"`,
    ],
    [
      "a padded option that is also a multi_select default",
      { question: "Which?", answer_type: "multi_select", options: ["a", " b"], default: [" b"] },
      `${PADDED} \`options[1]\` as "b"`,
    ],
    [
      "a padded default among clean options",
      select(["yes", "no"], { default: " yes " }),
      'default is not a valid answer: expected one of "yes", "no", got " yes "',
    ],
    [
      "a blank option in a form",
      form(apply, { id: "env", text: "Env?", answer_type: "select", options: ["prod", ""] }),
      "`questions[1].options` must not hold blank options, which a person cannot see or pick: remove `questions[1].options[1]`",
    ],
    [
      "a padded option in a form",
      form({ id: "envs", text: "Envs?", answer_type: "multi_select", options: ["prod", "dev "] }),
      '`questions[0].options` must not start or end with whitespace, which a person cannot see or type back as shown: send `questions[0].options[1]` as "dev"',
    ],
    [
      "options differing only by whitespace in a form",
      form({ id: "env", text: "Env?", answer_type: "select", options: ["prod", " prod"] }),
      '`questions[0].options[0]` "prod" and `questions[0].options[1]` " prod" differ only by leading or trailing whitespace, which a person cannot see: keep one, without the whitespace',
    ],
  ])("refuses %s", async (_name, args, problem) => {
    expect(await execute(args)).toEqual(refused(problem));
  });

  it("names twenty blank options and counts the rest", async () => {
    const options = ["yes", ...Array.from({ length: 25 }, () => " ")];
    const named = Array.from({ length: 20 }, (_, i) => `\`options[${i + 1}]\``).join(", ");
    expect(await execute(select(options))).toEqual(refused(`${BLANK} ${named} and 5 more`));
  });

  it("cuts a long padded option to 80 characters", async () => {
    const long = `${"x".repeat(10_000)} `;
    const outcome = await execute(select([long, "no"]));
    expect(outcome).toEqual(refused(`${PADDED} \`options[0]\` as "${"x".repeat(78)}…`));
  });

  it("still asks options with inner spaces", async () => {
    const outcome = await execute(select(["New York", "São Paulo"]));
    expect(outcome.type).toBe("needs_input");
  });

  it("through a coordinator: nobody is asked and nothing is recorded", async () => {
    const human = new MockPromptBackend({});
    const { response, trail } = await runAskUser(select(["yes", " "]), { prompts: human });
    expect(response).toMatchObject({ is_error: true, content: invalid(`${BLANK} \`options[1]\``) });
    expect(human.requests).toEqual([]);
    expect(trail).toEqual([]);
  });
});

describe("a refusal of arguments nested too deeply to quote", () => {
  const nested = (depth: number): unknown => {
    let value: unknown = "text";
    for (let i = 0; i < depth; i++) value = [value];
    return value;
  };

  it("names an answer_type nested 100000 lists deep by its kind", async () => {
    const outcome = await execute({ question: "Which?", answer_type: nested(100_000) });
    expect(outcome).toEqual(
      refused(`\`answer_type\` must be one of ${TYPES}; got a deeply nested list`),
    );
  });

  it("names an answer_type nested 100000 objects deep by its kind", async () => {
    let value: unknown = {};
    for (let i = 0; i < 100_000; i++) value = { type: value };
    const outcome = await execute({ question: "Which?", answer_type: value });
    expect(outcome).toEqual(
      refused(`\`answer_type\` must be one of ${TYPES}; got a deeply nested object`),
    );
  });

  it("still quotes a shallow one, cut to 80 characters", async () => {
    const outcome = await execute({ question: "Which?", answer_type: nested(100) });
    expect(outcome).toEqual(
      refused(`\`answer_type\` must be one of ${TYPES}; got ${"[".repeat(79)}…`),
    );
  });
});

describe("a number too large for JSON is refused under the argument's own name", () => {
  // 1e400 is valid JSON text but reads as Infinity, which no answer or schema can hold.
  const parsed = (text: string) => JSON.parse(text) as Record<string, unknown>;

  it.each<[string, string, string]>([
    [
      "a default",
      '{"question":"How many?","answer_type":"schema","schema":{},"default":1e400}',
      "default: expected a JSON value, got Infinity",
    ],
    [
      "a value inside a default",
      '{"question":"How many?","answer_type":"schema","schema":{},"default":{"n":[1e400]}}',
      "default.n[0]: expected a JSON value, got Infinity",
    ],
    [
      "a schema keyword",
      '{"question":"How many?","answer_type":"schema","schema":{"maximum":1e400}}',
      "schema.maximum: expected a JSON value, got Infinity",
    ],
    [
      "a form question's default",
      '{"questions":[{"id":"n","text":"How many?","answer_type":"schema","schema":{},"default":1e400}]}',
      "questions[0].default: expected a JSON value, got Infinity",
    ],
    [
      "a form question's schema",
      '{"questions":[{"id":"n","text":"How many?","answer_type":"schema","schema":{"maximum":1e400}}]}',
      "questions[0].schema.maximum: expected a JSON value, got Infinity",
    ],
  ])("%s", async (_name, text, problem) => {
    expect(await execute(parsed(text))).toEqual(refused(problem));
  });
});
