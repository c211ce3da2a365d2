import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ConversationStream, type JsonValue, toMarkdown } from "@jp/conversation";
import { err } from "neverthrow";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createLocalCommandExecutorSource,
  HumanUnreachableError,
  PromptUnsupportedError,
  type RunResult,
  type ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "../../src/index.js";
import {
  MockExecutor,
  MockExecutorSource,
  MockInquiryBackend,
  MockPromptBackend,
  type PromptScript,
} from "../../src/testing/index.js";
import { coordinatorFor } from "../helpers.js";
import {
  booleanQuestion,
  call,
  type EmittedEvent,
  recordEmitted,
  secretQuestion,
  textQuestion,
  UNATTENDED,
} from "../support.js";

const MASK = "[redacted secret]";

/** Everywhere a secret could surface once a run is over, by name. */
function surfaces(stream: ConversationStream, result: RunResult, emitted: EmittedEvent[]) {
  return {
    "the stream": JSON.stringify(stream.events),
    "the stream on disk": JSON.stringify(stream.toJSON()),
    markdown: toMarkdown(stream),
    "the run result": JSON.stringify(result),
    "the coordinator's events": JSON.stringify(emitted.map((e) => e.payload)),
  };
}

function expectNowhere(secret: string, places: Record<string, string>): void {
  for (const [where, text] of Object.entries(places)) {
    expect(text.includes(secret), `the secret leaked into ${where}`).toBe(false);
  }
}

/** How a tool fails: it throws, or returns an error result. */
type Failure = (secret: string) => { type: "completed"; content: string; is_error: true };

/** A tool that asks for a secret, then fails with `fail(secret)`. */
function failingWith(fail: Failure) {
  return new MockExecutor((input) => {
    const secret = input.answers.token;
    if (secret === undefined) return { type: "needs_input", question: secretQuestion() };
    return fail(String(secret));
  });
}

async function runWith(
  tools: ToolsConfig,
  executors: Record<string, MockExecutor>,
  script: PromptScript,
  calls = Object.keys(executors).map((name, i) => call(`call_${i + 1}`, name)),
) {
  const human = new MockPromptBackend(script);
  const { stream, coordinator } = coordinatorFor({
    tools,
    executors: new MockExecutorSource(executors),
    prompts: human,
  });
  const emitted = recordEmitted(coordinator);
  const result = await coordinator.run(calls, { turn: new TurnState() });
  return { stream, result, emitted, human, coordinator };
}

const errorResult = (content: string) => ({
  type: "completed" as const,
  content,
  is_error: true as const,
});

const answer = (value: JsonValue) => ({ type: "answer" as const, value });

describe("a secret answer is masked in the failure texts the coordinator records", () => {
  it.each<[string, string, Failure, string]>([
    [
      "a thrown error that quotes it",
      "hunter2-Qx9",
      (secret) => {
        throw new Error(`login failed for password ${secret}`);
      },
      `Tool 'login' failed: login failed for password ${MASK}`,
    ],
    [
      "an error result that quotes it twice",
      "hunter2-Qx9",
      (secret) => errorResult(`bad password ${secret} (was: ${secret})`),
      `bad password ${MASK} (was: ${MASK})`,
    ],
    [
      "a one-character secret",
      "7",
      (secret) => {
        throw new Error(`PIN ${secret} rejected`);
      },
      `Tool 'login' failed: PIN ${MASK} rejected`,
    ],
    [
      "a secret JSON-escaped inside a quoted JSON body",
      'pa"ss\\word',
      (secret) => {
        throw new Error(`server said ${JSON.stringify({ password: secret })}`);
      },
      `Tool 'login' failed: server said {"password":"${MASK}"}`,
    ],
    [
      "a secret with a newline, JSON-escaped",
      "line1\nline2",
      (secret) => errorResult(JSON.stringify({ rejected: secret })),
      `{"rejected":"${MASK}"}`,
    ],
  ])("%s", async (_name, secret, fail, expected) => {
    const { stream, result, emitted } = await runWith(
      UNATTENDED,
      { login: failingWith(fail) },
      { questions: [answer(secret)] },
    );

    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([[expected, true]]);
    // A one-character secret is too common a string to look for in whole documents: the exact
    // result above says enough.
    if (secret.length > 1) expectNowhere(secret, surfaces(stream, result, emitted));
  });

  it("a secret answered in one call is masked in another call's failure; a successful result is the tool's choice", async () => {
    const secret = "sk-live-7f3a9c";
    const login = new MockExecutor((input) =>
      input.answers.token === undefined
        ? { type: "needs_input", question: secretQuestion() }
        : { type: "success", content: "logged in" },
    );
    // Fails once login runs again with its answer, quoting the secret it learned elsewhere.
    const echo = new MockExecutor(async () => {
      while (login.executions.length < 2) await new Promise((r) => setImmediate(r));
      throw new Error(`upstream rejected ${secret}`);
    });
    const reveal = new MockExecutor((input) =>
      input.answers.token === undefined
        ? { type: "needs_input", question: secretQuestion() }
        : { type: "success", content: `your token is ${String(input.answers.token)}` },
    );
    const human = new MockPromptBackend({ questions: [answer(secret), answer(secret)] });
    const { coordinator } = coordinatorFor({
      tools: UNATTENDED,
      executors: new MockExecutorSource({ login, echo, reveal }),
      prompts: human,
    });

    const { responses } = await coordinator.run(
      [call("call_1", "login"), call("call_2", "echo"), call("call_3", "reveal")],
      { turn: new TurnState() },
    );

    expect(responses.map((r) => [r.content, r.is_error])).toEqual([
      ["logged in", false],
      [`Tool 'echo' failed: upstream rejected ${MASK}`, true],
      // Deliberately returned in a successful result: delivered as the tool wrote it.
      [`your token is ${secret}`, false],
    ]);
  });

  it("a later question that quotes a secret answer in its text, context or default is recorded, shown and routed with the secret masked", async () => {
    const secret = "pw-Zq81-unique";
    const tool = new MockExecutor((input) => {
      if (input.answers.token === undefined) {
        return { type: "needs_input", question: secretQuestion() };
      }
      if (input.answers.user === undefined) {
        return {
          type: "needs_input",
          question: { ...textQuestion("user"), default: `admin-${String(input.answers.token)}` },
        };
      }
      if (input.answers.sure === undefined) {
        return {
          type: "needs_input",
          question: {
            ...booleanQuestion("sure"),
            text: `Log in with ${String(input.answers.token)}?`,
            context: `token: ${String(input.answers.token)}`,
          },
        };
      }
      return { type: "success", content: "done" };
    });
    const { stream, result, emitted, human } = await runWith(
      UNATTENDED,
      { login: tool },
      { questions: [answer(secret), answer("admin"), answer(true)] },
    );

    expect(result.responses.map((r) => r.content)).toEqual(["done"]);
    expect(
      human.questions.map((q) => [q.question.text, q.question.context, q.question.default]),
    ).toEqual([
      [secretQuestion().text, undefined, undefined],
      [textQuestion("user").text, undefined, `admin-${MASK}`],
      [`Log in with ${MASK}?`, `token: ${MASK}`, undefined],
    ]);
    expectNowhere(secret, surfaces(stream, result, emitted));
  });

  it.each([
    [
      "a select's options",
      (secret: string) => ({
        id: "which",
        text: "Store the key?",
        answer_type: { type: "select", options: [`store ${secret}`, "discard"] },
      }),
      "options",
    ],
    [
      "a schema",
      (secret: string) => ({
        id: "which",
        text: "A note?",
        answer_type: { type: "schema", schema: { type: "string", description: `for ${secret}` } },
      }),
      "schema",
    ],
    [
      "a schema's property name",
      (secret: string) => ({
        id: "which",
        text: "A note?",
        answer_type: { type: "schema", schema: { type: "object", properties: { [secret]: {} } } },
      }),
      "schema",
    ],
    [
      "its id",
      (secret: string) => ({
        id: `which-${secret}`,
        text: "A note?",
        answer_type: { type: "text" },
      }),
      "id",
    ],
    [
      "a schema question's default",
      (secret: string) => ({
        id: "which",
        text: "A note?",
        answer_type: { type: "schema", schema: { type: "object" } },
        default: { key: secret },
      }),
      "default",
    ],
  ] as const)(
    "a later question that quotes a secret answer in %s is not asked: the call fails saying where, and the secret is nowhere",
    async (_, quoting, where) => {
      const secret = "pw-Ux52-unique";
      const tool = new MockExecutor((input) => {
        if (input.answers.token === undefined) {
          return { type: "needs_input", question: secretQuestion() };
        }
        if (input.answers.which === undefined) {
          return { type: "needs_input", question: quoting(String(input.answers.token)) as never };
        }
        return { type: "success", content: "done" };
      });
      const { stream, result, emitted, human } = await runWith(
        UNATTENDED,
        { login: tool },
        { questions: [answer(secret), answer("discard")] },
      );

      expect(human.questions).toHaveLength(1);
      expect(result.responses[0]?.is_error).toBe(true);
      const id = where === "id" ? `which-${MASK}` : "which";
      expect(result.responses[0]?.content).toContain(
        `its question "${id}" quotes a secret answer in its ${where}, where it cannot be hidden`,
      );
      expect(stream.events.filter((e) => e.type === "inquiry_request")).toHaveLength(1);
      expectNowhere(secret, surfaces(stream, result, emitted));
    },
  );

  it("a secret of fewer than four characters refuses a question only where it is a whole option", async () => {
    const asked = (options: string[]) =>
      new MockExecutor((input) => {
        if (input.answers.token === undefined) {
          return { type: "needs_input", question: secretQuestion() };
        }
        if (input.answers.which === undefined) {
          return {
            type: "needs_input",
            question: { id: "which", text: "Which?", answer_type: { type: "select", options } },
          };
        }
        return { type: "success", content: `chose ${String(input.answers.which)}` };
      });
    // "7" inside "Option 7" is a coincidence: the question is asked.
    const coincidence = await runWith(
      UNATTENDED,
      { login: asked(["Option 7", "Option 8"]) },
      { questions: [answer("7"), answer("Option 8")] },
    );
    expect(coincidence.result.responses[0]).toMatchObject({ content: "chose Option 8" });
    // The secret itself as an option is a quote: the question is not asked.
    const quoted = await runWith(
      UNATTENDED,
      { login: asked(["7", "8"]) },
      { questions: [answer("7"), answer("8")] },
    );
    expect(quoted.result.responses[0]?.is_error).toBe(true);
    expect(quoted.human.questions).toHaveLength(1);
  });

  it.each(["type", "text", "select", "options", "value", "string", "properties"])(
    "a secret that is one of the answer type's own words (%s) refuses no later question",
    async (secret) => {
      const tool = new MockExecutor((input) => {
        if (input.answers.token === undefined) {
          return { type: "needs_input", question: secretQuestion() };
        }
        const asked = [
          { id: "a", text: "A?", answer_type: { type: "text" } },
          { id: "b", text: "B?", answer_type: { type: "select", options: ["x", "y"] } },
          {
            id: "c",
            text: "C?",
            answer_type: {
              type: "schema",
              schema: { type: "object", properties: { n: { type: "string" } } },
            },
          },
        ].find((question) => input.answers[question.id] === undefined);
        return asked === undefined
          ? { type: "success", content: "done" }
          : { type: "needs_input", question: asked as never };
      });
      const { result } = await runWith(
        UNATTENDED,
        { login: tool },
        { questions: [answer(secret), answer("z"), answer("x"), answer({ n: "z" })] },
      );
      expect(result.responses[0]).toMatchObject({ content: "done", is_error: false });
    },
  );

  it("a static secret from the configuration is masked too", async () => {
    const secret = "static-Kx27-secret";
    const { result } = await runWith(
      { ...UNATTENDED, deploy: { questions: { token: { answer: secret } } } },
      {
        deploy: failingWith((s) => {
          throw new Error(`deploy key ${s} expired`);
        }),
      },
      {},
    );
    expect(result.responses.map((r) => r.content)).toEqual([
      `Tool 'deploy' failed: deploy key ${MASK} expired`,
    ]);
  });

  it("a longer secret that contains a shorter one is masked whole", async () => {
    const tool = new MockExecutor((input) => {
      if (input.answers.short === undefined) {
        return { type: "needs_input", question: secretQuestion("short") };
      }
      if (input.answers.long === undefined) {
        return { type: "needs_input", question: secretQuestion("long") };
      }
      throw new Error(`tried ${String(input.answers.long)} and ${String(input.answers.short)}`);
    });
    const { result } = await runWith(
      UNATTENDED,
      { vault: tool },
      { questions: [answer("abc"), answer("xxabcxx")] },
    );
    expect(result.responses[0]?.content).toBe(`Tool 'vault' failed: tried ${MASK} and ${MASK}`);
  });

  it("a one-character secret that also occurs in the mask leaves the mask readable", async () => {
    const tool = new MockExecutor((input) => {
      if (input.answers.pin === undefined) {
        return { type: "needs_input", question: secretQuestion("pin") };
      }
      if (input.answers.password === undefined) {
        return { type: "needs_input", question: secretQuestion("password") };
      }
      throw new Error(
        `pin ${String(input.answers.pin)}, password ${String(input.answers.password)}`,
      );
    });
    const { result } = await runWith(
      UNATTENDED,
      { vault: tool },
      { questions: [answer("d"), answer("hunter2")] },
    );
    // Every "d" is masked (a one-letter secret is a bad secret), but no mask is masked again.
    expect(result.responses[0]?.content).toBe(
      `Tool 'vault' failed: pin ${MASK}, passwor${MASK} ${MASK}`,
    );
  });
});

describe("a secret answer is masked in a prompt backend's error texts", () => {
  // A form: the secret first, then a prompt the backend cannot show.
  const form = () =>
    new MockExecutor((input) => {
      if (input.answers.token === undefined) {
        return { type: "needs_input", question: secretQuestion() };
      }
      if (input.answers.name === undefined) {
        return { type: "needs_input", question: textQuestion() };
      }
      return { type: "success", content: "done" };
    });
  const secret = "s3cr3t-Ab12";

  it.each<[string, Error, string]>([
    [
      "HumanUnreachableError",
      new HumanUnreachableError(`the client disconnected after receiving "${secret}"`),
      `Tool input prompt failed: the user could not be reached (the client disconnected after receiving "${MASK}"). The user did not decline; do not retry this tool call in this turn.`,
    ],
    [
      "PromptUnsupportedError",
      new PromptUnsupportedError(`cannot show a text question (session ${secret})`),
      `Tool input prompt failed: cannot show a text question (session ${MASK})`,
    ],
  ])("a question prompt rejected with %s", async (_name, error, expected) => {
    const { stream, result, emitted } = await runWith(
      UNATTENDED,
      { login: form() },
      {
        questions: [
          answer(secret),
          () => {
            throw error;
          },
        ],
      },
    );
    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([[expected, true]]);
    expectNowhere(secret, surfaces(stream, result, emitted));
  });

  it("a delivery prompt that rejects", async () => {
    const { stream, result, emitted } = await runWith(
      { login: { run: "unattended", result: "ask" } },
      {
        login: new MockExecutor((input) =>
          input.answers.token === undefined
            ? { type: "needs_input", question: secretQuestion() }
            : { type: "success", content: "logged in" },
        ),
      },
      {
        questions: [answer(secret)],
        deliveries: [
          () => {
            throw new Error(`viewer crashed on ${secret}`);
          },
        ],
      },
    );
    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      [
        `The tool ran, but its result was not delivered: the delivery prompt failed (viewer crashed on ${MASK}). The user did not decline.`,
        true,
      ],
    ]);
    expectNowhere(secret, surfaces(stream, result, emitted));
  });
});

describe("a secret answer is masked in an LLM inquiry's error", () => {
  it("the inquiry backend's error message quotes a secret answered earlier in the call", async () => {
    const secret = "llm-leak-Zz90";
    const tool = new MockExecutor((input) => {
      if (input.answers.token === undefined) {
        return { type: "needs_input", question: secretQuestion() };
      }
      if (input.answers.confirm === undefined) {
        return { type: "needs_input", question: booleanQuestion() };
      }
      return { type: "success", content: "done" };
    });
    const llm = new MockInquiryBackend(() =>
      err({ kind: "provider", message: `the provider echoed the prompt: ${secret}` }),
    );
    const human = new MockPromptBackend({ questions: [answer(secret)] });
    const { stream, coordinator } = coordinatorFor({
      tools: { t: { run: "unattended", questions: { confirm: { target: "assistant" } } } },
      executors: new MockExecutorSource({ t: tool }),
      prompts: human,
      inquiries: llm,
    });
    const emitted = recordEmitted(coordinator);

    const result = await coordinator.run([call("call_1", "t")], { turn: new TurnState() });

    expect(result.responses[0]?.content).toBe(
      `The tool 't' asked a follow-up question ("Go ahead?") that was routed to a secondary assistant for resolution, but the secondary assistant failed to provide a valid answer. Error: the provider echoed the prompt: ${MASK}. You may retry the tool call or end the turn.`,
    );
    expectNowhere(secret, surfaces(stream, result, emitted));
  });
});

// A real local command: it asks for a token, then fails with it on stderr (and, in `dump` mode,
// with its whole JSON input, as a program that reports what it was given does).
const SCRIPT = `
let text = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) text += chunk;
const { tool } = JSON.parse(text);
const token = tool.answers.token;
if (token === undefined) {
  process.stdout.write(JSON.stringify({ type: "needs_input",
    question: { id: "token", text: "API token?", answer_type: { type: "secret" } } }));
} else {
  process.stdout.write("half done");
  process.stderr.write(process.argv[2] === "dump" ? "bad input: " + text : "login failed for " + token);
  process.exitCode = 3;
}`;

describe("a secret answer is masked in a local command's output on a non-zero exit", () => {
  let dir: string;
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "jp-secret-mask-")));
    writeFileSync(join(dir, "login.mjs"), SCRIPT);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function runCommand(mode: "plain" | "dump", secret: string) {
    const { stream, coordinator } = coordinatorFor({
      tools: {
        login: {
          run: "unattended",
          command: { program: process.execPath, args: [join(dir, "login.mjs"), mode] },
        },
      },
      executors: createLocalCommandExecutorSource({ root: dir }),
      prompts: new MockPromptBackend({ questions: [answer(secret)] }),
    });
    const emitted = recordEmitted(coordinator as ToolCoordinator);
    const result = await coordinator.run([call("call_1", "login")], { turn: new TurnState() });
    return { stream, result, emitted };
  }

  it("the secret on stderr", async () => {
    const secret = "cmd-secret-Vb31";
    const { stream, result, emitted } = await runCommand("plain", secret);
    expect(result.responses.map((r) => [r.content, r.is_error])).toEqual([
      [
        JSON.stringify({
          message: "Tool 'login' execution failed.",
          stderr: `login failed for ${MASK}`,
          stdout: "half done",
        }),
        true,
      ],
    ]);
    expectNowhere(secret, surfaces(stream, result, emitted));
  });

  it.each([
    ["plain", "cmd-secret-Vb31"],
    ["with a quote and a backslash", 'q"uo\\te-Vb31'],
    ["with a newline", "new\nline-Vb31"],
  ])(
    "the command's JSON input (holding the secret, %s) on stderr, quoted again in the result",
    async (_name, secret) => {
      const { stream, result, emitted } = await runCommand("dump", secret);
      const [response] = result.responses;
      expect(response?.is_error).toBe(true);
      const { stderr } = JSON.parse(response?.content ?? "") as { stderr: string };
      expect(JSON.parse(stderr.replace(/^bad input: /, ""))).toMatchObject({
        tool: { name: "login", answers: { token: MASK } },
      });
      expectNowhere(secret, surfaces(stream, result, emitted));
      // Nor in any JSON-escaped form of it.
      expectNowhere(JSON.stringify(secret).slice(1, -1), surfaces(stream, result, emitted));
    },
  );
});
