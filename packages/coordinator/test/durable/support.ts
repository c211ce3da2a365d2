// Scenario machinery for the suspend/resume tests: form tools, a deterministic person, and the
// two ways of running one scenario (answered live, or suspended and resumed through a store).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ConversationStream,
  FileConversationStore,
  type JsonValue,
  type StoredConversation,
} from "@jp/conversation";
import type { Question } from "@jp/tool";
import {
  answerPendingPrompt,
  type Executor,
  type ExecutorSource,
  listPendingPrompts,
  type PromptBackend,
  type PromptRequest,
  type ReplyFor,
  type StoredReply,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "../../src/index.js";
import { MockExecutor } from "../../src/testing/index.js";
import { macrotasks } from "../support.js";

/** A yes/no question `id` ("id?"), with `extra` fields. */
export const q = (id: string, extra: Partial<Question> = {}): Question => ({
  id,
  text: `${id}?`,
  answer_type: { type: "boolean" },
  ...extra,
});

/** A form tool over `questions`, reporting progress, finishing with its answers as JSON. */
export function form(questions: readonly Question[]): Executor {
  return new MockExecutor((input) => {
    const index = questions.findIndex((x) => !Object.hasOwn(input.answers, x.id));
    const next = questions[index];
    if (next === undefined) return { type: "success", content: JSON.stringify(input.answers) };
    return {
      type: "needs_input",
      question: next,
      form: { index: index + 1, total: questions.length },
    };
  });
}

/** An empty stream with a turn started. */
export function started(): ConversationStream {
  const stream = ConversationStream.empty();
  stream.startTurn("Go.");
  return stream;
}

/** A person who keeps pressing Back loops: this limit ends the call, also across suspensions. */
const MAX_QUESTIONS = 12;

export type QuestionKind = "boolean" | "select" | "text" | "secret";

/** One tool call of a scenario: a form of questions, and how it is configured. */
export interface CallSpec {
  readonly questions: readonly QuestionKind[];
  readonly run: "ask" | "unattended";
  readonly result: "ask" | "unattended";
  /** Calls sharing a tool name share remembered answers and permission decisions. */
  readonly tool: "alpha" | "beta";
  /**
   * When set, the call's tool asks no questions of its own: it runs a sub-agent (its own stream
   * and coordinator) whose form tool asks these, escalated to the parent's person.
   */
  readonly agent?: {
    readonly questions: readonly QuestionKind[];
    readonly run: "ask" | "unattended";
    readonly result: "ask" | "unattended";
  };
}

export interface Scenario {
  readonly calls: readonly CallSpec[];
  /** The person's choices, one per prompt they answer, in order. */
  readonly choices: readonly number[];
}

export function question(kind: QuestionKind, i: number): Question {
  const id = `q${i}`;
  switch (kind) {
    case "boolean":
      return { id, text: `Question ${i}?`, answer_type: { type: "boolean" } };
    case "select":
      return { id, text: `Pick ${i}`, answer_type: { type: "select", options: ["a", "b", "c"] } };
    case "text":
      return { id, text: `Name ${i}?`, answer_type: { type: "text" } };
    case "secret":
      return { id, text: `Password ${i}?`, answer_type: { type: "secret" } };
  }
}

/** A form tool: asks its questions in order, reporting form progress, then reports its answers. */
function formExecutor(questions: readonly Question[]): Executor {
  return {
    async execute({ call, answers }) {
      await Promise.resolve();
      const index = questions.findIndex((q) => answers[q.id] === undefined);
      const next = questions[index];
      if (next !== undefined) {
        return {
          type: "needs_input",
          question: next,
          source: { source: "tool", name: call.name },
          form: { index: index + 1, total: questions.length },
        };
      }
      return {
        type: "completed",
        content: JSON.stringify({ args: call.arguments, answers }),
        is_error: false,
      };
    },
  };
}

/**
 * A tool that runs a whole sub-agent in each pass: a fresh stream and coordinator whose one call
 * is a form, its prompts escalated to the parent (as `subAgentPrompts` in @jp/builtins does).
 * Its result is the sub-agent's: the same whenever the sub-agent got the same replies.
 */
export function subAgentExecutor(
  parent: () => ToolCoordinator,
  agent: NonNullable<CallSpec["agent"]>,
): Executor {
  return {
    async execute({ call, signal }) {
      const conversation = new FileConversationStore("/nonexistent").create({ title: "sub" });
      conversation.stream.startTurn("Help the parent.");
      const child = new ToolCoordinator({
        stream: conversation.stream,
        tools: { gamma: { run: agent.run, result: agent.result } },
        executors: { executorFor: () => formExecutor(agent.questions.map(question)) },
        prompts: {
          isHumanReachable: () => parent().humanReachableFor(call.id),
          ask: (request, options) => parent().escalate(call.id, "helper", request, options),
        },
        maxQuestionsPerCall: MAX_QUESTIONS,
      });
      const ran = await child.run([{ id: "sub_0", name: "gamma", arguments: {} }], {
        turn: new TurnState(),
        signal,
      });
      const content = JSON.stringify({
        sub: ran.responses.map((r) => r.content),
        pending: ran.pending.length,
      });
      return { type: "completed", content, is_error: false };
    },
  };
}

/** Per call id, its form or its sub-agent; the tool name picks configuration only. */
export function executorsFor(scenario: Scenario, parent: () => ToolCoordinator): ExecutorSource {
  return {
    executorFor(call) {
      const spec = scenario.calls[Number(call.id.slice("call_".length))];
      if (spec === undefined) return undefined;
      if (spec.agent !== undefined) return subAgentExecutor(parent, spec.agent);
      return formExecutor(spec.questions.map(question));
    },
  };
}

export function toolsFor(scenario: Scenario): ToolsConfig {
  // Configuration is per tool name; the first call of a tool decides its modes.
  const tools: Record<string, { run: string; result: string }> = {};
  for (const spec of scenario.calls) {
    tools[spec.tool] ??= { run: spec.run, result: spec.result };
  }
  return tools as ToolsConfig;
}

export function callsOf(scenario: Scenario) {
  return scenario.calls.map((spec, i) => ({
    id: `call_${i}`,
    name: spec.tool,
    arguments: { n: i },
  }));
}

/** The reply a person gives to `request` with `choice`: valid for the prompt, varied by choice. */
export function replyFor(request: PromptRequest, choice: number): StoredReply {
  switch (request.kind) {
    case "question": {
      const { controls, question: q } = request;
      if (choice % 11 === 0 && controls.back) return { type: "back" };
      if (choice % 23 === 1 && controls.end_turn) return { type: "end_turn" };
      if (choice % 29 === 2 && controls.reply) return { type: "reply", message: `note ${choice}` };
      const remember = choice % 5 === 3 && controls.remember;
      const value: JsonValue =
        q.answer_type.type === "boolean"
          ? choice % 2 === 0
          : q.answer_type.type === "select"
            ? (["a", "b", "c"][choice % 3] as string)
            : `text ${choice}`;
      return remember ? { type: "answer", value, remember: true } : { type: "answer", value };
    }
    case "permission":
      switch (choice % 5) {
        case 0:
          return { type: "skip", reason: `no ${choice}` };
        case 1:
          return { type: "edit", arguments: { edited: choice } };
        case 2:
          return { type: "run", remember: true };
        default:
          return { type: "run" };
      }
    case "deliver":
      switch (choice % 3) {
        case 0:
          return { type: "skip" };
        case 1:
          return { type: "edit", content: `edited ${choice}` };
        default:
          return { type: "deliver" };
      }
  }
}

/**
 * The person's choice for a prompt, from the prompt's identity (its inquiry id, with the
 * attempt, or its call and kind): the same prompt gets the same reply in every run, however the
 * scheduler interleaves concurrent calls.
 */
export function choiceFor(choices: readonly number[], request: PromptRequest): number {
  const key = promptIdOf(request);
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (hash * 31 + key.charCodeAt(i)) >>> 0;
  return choices[hash % choices.length] ?? 0;
}

function promptIdOf(request: PromptRequest): string {
  return request.kind === "question"
    ? request.inquiry_id
    : `${request.tool_call_id}#${request.kind}`;
}

/** A slow, deterministic person (see {@link choiceFor}). */
export class ScriptedPerson implements PromptBackend {
  constructor(private readonly choices: readonly number[]) {}
  isHumanReachable(): boolean {
    return true;
  }
  async ask<R extends PromptRequest>(request: R): Promise<ReplyFor<R>> {
    // A person is slow: every tool that can get to its next prompt does so first.
    await macrotasks(4);
    return replyFor(request, choiceFor(this.choices, request)) as ReplyFor<R>;
  }
}

/** The stream as JSON with timestamps left out: what "the same stream" compares. */
export function comparable(stream: ConversationStream): unknown[] {
  return stream.toJSON().map((event) => {
    const { timestamp: _, ...rest } = event as { timestamp?: string };
    return rest;
  });
}

/** The id of the tool call an event belongs to, if any. */
function callOf(event: unknown): string | undefined {
  const { type, id } = event as { type?: string; id?: string };
  if (type === "tool_call_request" || type === "tool_call_response") return id;
  if (type === "inquiry_request" || type === "inquiry_response") return id?.split(".")[0];
  return undefined;
}

/**
 * The stream split per tool call, each call's events in order (timestamps left out), and the
 * events of no call. Concurrent calls interleave as the scheduler runs them, in one live run as
 * in another: each call's own history is what must not differ.
 */
export function perCall(stream: ConversationStream): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const event of comparable(stream)) {
    const key = callOf(event) ?? "(none)";
    const events = out[key] ?? [];
    events.push(event);
    out[key] = events;
  }
  return out;
}

/** Runs the scenario with the person answering at each prompt. */
export async function runLive(scenario: Scenario): Promise<ConversationStream> {
  const store = new FileConversationStore("/nonexistent");
  const conversation = store.create({ title: "live" });
  conversation.stream.startTurn("Do the things.");
  const coordinator: ToolCoordinator = new ToolCoordinator({
    stream: conversation.stream,
    tools: toolsFor(scenario),
    executors: executorsFor(scenario, () => coordinator),
    prompts: new ScriptedPerson(scenario.choices),
    maxQuestionsPerCall: MAX_QUESTIONS,
  });
  const result = await coordinator.run(callsOf(scenario), { turn: new TurnState() });
  if (result.pending.length > 0) throw new Error("a live run left prompts pending");
  return conversation.stream;
}

/** A temporary directory, removed by the returned function. */
export async function tempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), "jp-durable-"));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

async function reload(root: string, name: string): Promise<StoredConversation> {
  const loaded = await new FileConversationStore(root).load(name);
  if (loaded.isErr()) throw new Error(loaded.error.message);
  return loaded.value;
}

async function save(root: string, conversation: StoredConversation): Promise<void> {
  const saved = await new FileConversationStore(root).save(conversation);
  if (saved.isErr()) throw new Error(saved.error.message);
}

/**
 * Runs the scenario with nobody to ask: it suspends at its first prompts, and then, until the
 * turn is done, a fresh process (a fresh store and coordinator) answers the first pending prompt
 * and another fresh one resumes. Returns the final stream, as loaded from disk, and the number
 * of suspensions.
 */
export async function runSuspended(
  scenario: Scenario,
  root: string,
): Promise<{ stream: ConversationStream; suspensions: number }> {
  const conversation = new FileConversationStore(root).create({ title: "suspended" });
  conversation.stream.startTurn("Do the things.");
  const coordinatorFor = (stream: ConversationStream) => {
    const coordinator: ToolCoordinator = new ToolCoordinator({
      stream,
      tools: toolsFor(scenario),
      executors: executorsFor(scenario, () => coordinator),
      maxQuestionsPerCall: MAX_QUESTIONS,
    });
    return coordinator;
  };
  let result = await coordinatorFor(conversation.stream).run(callsOf(scenario), {
    turn: new TurnState(),
    suspend: true,
  });
  await save(root, conversation);
  let suspensions = 0;
  while (result.pending.length > 0) {
    suspensions++;
    if (suspensions > 200) throw new Error("the turn never finished");
    // Another process answers the first pending prompt.
    const answering = await reload(root, conversation.name);
    const [first] = listPendingPrompts(answering.stream);
    if (first === undefined) throw new Error("run() reported pending prompts the stream lacks");
    const reply = replyFor(first.request, choiceFor(scenario.choices, first.request));
    const taken = answerPendingPrompt(answering.stream, first.prompt_id, reply);
    if (taken.isErr()) throw new Error(taken.error.message);
    await save(root, answering);
    // And another resumes, with still nobody to ask.
    const resuming = await reload(root, conversation.name);
    result = await coordinatorFor(resuming.stream).resume();
    await save(root, resuming);
  }
  return { stream: (await reload(root, conversation.name)).stream, suspensions };
}
