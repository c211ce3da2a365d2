import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { JsonObject, JsonValue } from "@jp/conversation";
import { type Executor, SecretMask } from "@jp/coordinator";
import type { Question } from "@jp/tool";
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  fromJsonSchema,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  isInputRequiredResult,
  type McpRequestContext,
  McpServer,
  type McpServerFactory,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { isPlainObject } from "../internal/json.js";
import { checkCount, checkSeconds, checkTimeout } from "../internal/options.js";
import {
  answerFromContent,
  elicitationForQuestion,
  type QuestionReading,
} from "./question-form.js";
import { refusalResult } from "./refusal.js";
import { SecretStore, settleWithin } from "./secret-store.js";

/** A tool served to MCP clients: how the model sees it, and what runs it. */
export interface ServedTool {
  readonly description: string;
  /** The JSON Schema of the arguments. Default: any object. */
  readonly inputSchema?: JsonObject;
  /** Runs passes of the tool, e.g. `builtinExecutor("ask_user", askUser)`. */
  readonly executor: Executor;
}

/**
 * Collects the answer to a `secret` question on a page of the host's own server, so it never
 * travels through the MCP client (MCP's URL mode). `answer` settles when the person has
 * submitted the page.
 */
export interface SecretPage {
  begin(request: {
    readonly tool: string;
    readonly question: Question;
    /**
     * Aborts once the call no longer waits for this page: on 2025 revisions when the call returns
     * or its client cancels it; on 2026-07-28, where the client comes back with a new request
     * each round, when the call ends (a result, a failure, the client's decline), or an hour
     * after the call's first page was made if the client never comes back.
     */
    readonly signal: AbortSignal;
  }): Promise<{ readonly url: string; readonly answer: Promise<string> }>;
}

/** Options of {@link createMcpToolServer}. */
export interface McpToolServerOptions {
  readonly name: string;
  readonly version: string;
  readonly tools: Readonly<Record<string, ServedTool>>;
  /**
   * The key (at least 32 bytes) that signs the state a 2026-07-28 client echoes between rounds.
   * Default: random per {@link createMcpToolServer} call, so every round must reach this process.
   */
  readonly stateKey?: Uint8Array | string;
  /** How long a round's state stays valid. Default 3600 s. */
  readonly stateTtlSeconds?: number;
  /** Where secret questions are answered; without it a secret question is refused. */
  readonly secretPage?: SecretPage;
  /** A call that asks more questions than this fails. Default 64. */
  readonly maxQuestionsPerCall?: number;
  /** How long a 2025-era client has to answer one pushed question. Default 600 000 ms. */
  readonly answerTimeoutMs?: number;
}

/** An answer that does not fit is asked again with the problem, this many times at most. */
export const MAX_ANSWER_ATTEMPTS = 3;

/** What a 2026-07-28 client echoes between rounds (signed, readable by the client). */
interface RoundState {
  readonly tool: string;
  /** A digest of the arguments: state minted for one call is refused on another. */
  readonly args: string;
  readonly call: string;
  /** Non-secret answers so far; secret ones stay in this process. */
  readonly answers: Record<string, JsonValue>;
  readonly asking: {
    readonly id: string;
    readonly reading: QuestionReading | "secret";
    readonly attempt: number;
  };
}

const CREATE = "createMcpToolServer";

function checkServerOptions(options: McpToolServerOptions): void {
  const key = options.stateKey;
  if (key !== undefined) {
    const allowed = "a string or Uint8Array of at least 32 bytes";
    if (typeof key !== "string" && !(key instanceof Uint8Array)) {
      throw new TypeError(`${CREATE}: \`stateKey\` must be ${allowed}; got ${typeof key}`);
    }
    const bytes = typeof key === "string" ? Buffer.byteLength(key, "utf8") : key.byteLength;
    if (bytes < 32) {
      throw new RangeError(`${CREATE}: \`stateKey\` must be ${allowed}; got ${bytes} bytes`);
    }
  }
  checkSeconds(CREATE, "stateTtlSeconds", options.stateTtlSeconds);
  checkCount(CREATE, "maxQuestionsPerCall", options.maxQuestionsPerCall, "questions");
  checkTimeout(CREATE, "answerTimeoutMs", options.answerTimeoutMs);
}

/**
 * A factory of MCP servers (for `serveStdio` or `createMcpHandler`) that serve `tools`. A question
 * a tool asks reaches the client as an input-required result on 2026-07-28 connections and as a
 * pushed `elicitation/create` on 2025 ones; the answers come back as the tool's accumulated
 * answers. Secret questions never travel as forms.
 *
 * @example
 * serveStdio(createMcpToolServer({
 *   name: "assistant-tools", version: "1.0.0",
 *   tools: { ask_user: { description: ASK_USER_DESCRIPTION, inputSchema, executor: builtinExecutor("ask_user", askUser) } },
 * }));
 */
export function createMcpToolServer(options: McpToolServerOptions): McpServerFactory {
  checkServerOptions(options);
  const codec = createRequestStateCodec<RoundState>({
    key: options.stateKey ?? randomBytes(32),
    ttlSeconds: options.stateTtlSeconds ?? 3600,
  });
  const secrets = new SecretStore();
  return ({ era }: McpRequestContext) => {
    const server = new McpServer(
      { name: options.name, version: options.version },
      { requestState: { verify: codec.verify } },
    );
    for (const [name, tool] of Object.entries(options.tools)) {
      const serving: Serving = {
        name,
        tool,
        options,
        codec,
        secrets,
        // Per request on 2026-07-28 (the request's envelope), per connection before.
        opensPages: (ctx) => {
          const declared =
            era === "modern"
              ? (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
                  CLIENT_CAPABILITIES_META_KEY
                ]
              : server.server.getClientCapabilities();
          const elicitation = isPlainObject(declared) ? declared.elicitation : undefined;
          return isPlainObject(elicitation) && elicitation.url !== undefined;
        },
        // 2025 revisions: the connection's declaration (a 2026-07-28 round is checked by the SDK).
        // The SDK reads a 2025-06-18 client's `elicitation: {}` as forms (see form-capability
        // tests).
        takesForms: () => {
          const elicitation = server.server.getClientCapabilities()?.elicitation;
          return isPlainObject(elicitation) && elicitation.form !== undefined;
        },
      };
      server.registerTool(
        name,
        {
          description: tool.description,
          inputSchema: fromJsonSchema<JsonObject>(tool.inputSchema ?? { type: "object" }),
        },
        (args: JsonObject, ctx: ServerContext) =>
          era === "modern" ? serveRound(serving, args, ctx) : servePushed(serving, args, ctx),
      );
    }
    return server;
  };
}

interface Serving {
  readonly name: string;
  readonly tool: ServedTool;
  readonly options: McpToolServerOptions;
  readonly codec: { mint(payload: RoundState): Promise<string> };
  readonly secrets: SecretStore;
  /** Whether the client asking takes URL elicitations (the only way a secret may travel). */
  readonly opensPages: (ctx: ServerContext) => boolean;
  /** Whether a 2025-era client takes form elicitations. */
  readonly takesForms: () => boolean;
}

type Step =
  | { readonly type: "done"; readonly result: CallToolResult }
  | { readonly type: "ask"; readonly question: Question };

// Runs the tool with the answers so far until it finishes or asks. The call's secret answers
// (`secret` names them) are masked in what goes to the client, and so to its model: a failure's
// text, a thrown error's, a later question's text, context and text default. A later question
// that quotes one where masking would change what it accepts (options, a schema) is not asked.
async function runTool(
  serving: Serving,
  call: { id: string; arguments: JsonObject },
  answers: Record<string, JsonValue>,
  secret: ReadonlySet<string>,
  signal: AbortSignal,
): Promise<Step> {
  const mask = maskOf(answers, secret);
  let result: Awaited<ReturnType<Executor["execute"]>>;
  try {
    result = await serving.tool.executor.execute({
      call: { id: call.id, name: serving.name, arguments: call.arguments },
      answers,
      signal,
    });
  } catch (error) {
    if (mask === undefined || signal.aborted) throw error;
    const message = error instanceof Error ? error.message : String(error);
    return { type: "done", result: errorResult(mask.mask(message)) };
  }
  if (result.type === "completed") {
    const text = result.is_error && mask !== undefined ? mask.mask(result.content) : result.content;
    return {
      type: "done",
      result: { content: [{ type: "text", text }], isError: result.is_error },
    };
  }
  if (mask === undefined) return { type: "ask", question: result.question };
  const unaskable = mask.unaskable(result.question);
  if (unaskable !== undefined) {
    return { type: "done", result: errorResult(`Tool '${serving.name}' failed: ${unaskable}.`) };
  }
  return { type: "ask", question: mask.maskQuestion(result.question) };
}

// A mask of the call's secret answers, or `undefined` while it has none.
function maskOf(
  answers: Readonly<Record<string, JsonValue>>,
  secret: ReadonlySet<string>,
): SecretMask | undefined {
  if (secret.size === 0) return undefined;
  const mask = new SecretMask();
  for (const id of secret) if (Object.hasOwn(answers, id)) mask.add(answers[id]);
  return mask;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function tooManyQuestions(serving: Serving): CallToolResult {
  const max = serving.options.maxQuestionsPerCall ?? 64;
  return errorResult(`Tool '${serving.name}' asked more than ${max} questions.`);
}

/** 2025 era: each question is a pushed `elicitation/create` inside this one call. */
async function servePushed(
  serving: Serving,
  args: JsonObject,
  ctx: ServerContext,
): Promise<CallToolResult> {
  // The call's secret pages are told when it returns, however it ends: its request's signal
  // aborts only when the client cancels it.
  const over = new AbortController();
  try {
    return await askPushed(serving, args, ctx, AbortSignal.any([ctx.mcpReq.signal, over.signal]));
  } finally {
    over.abort();
  }
}

async function askPushed(
  serving: Serving,
  args: JsonObject,
  ctx: ServerContext,
  pageSignal: AbortSignal,
): Promise<CallToolResult> {
  const call = { id: `mcp-${randomUUID()}`, arguments: args };
  const answers: Record<string, JsonValue> = {};
  const secret = new Set<string>();
  const signal = ctx.mcpReq.signal;
  const timeout = answerTimeout(serving);
  for (let asked = 0; ; asked++) {
    const step = await runTool(serving, call, answers, secret, signal);
    if (step.type === "done") return step.result;
    // Checked before the question is sent, as on 2026-07-28: an answer the call cannot use is
    // never asked for.
    if (asked >= maxQuestions(serving)) return tooManyQuestions(serving);
    const { question } = step;
    let error: string | undefined;
    for (let attempt = 1; ; attempt++) {
      if (question.answer_type.type === "secret") {
        const page = serving.options.secretPage;
        if (page === undefined) return secretRefused(question);
        if (!serving.opensPages(ctx)) return secretNoPage(question);
        const opened = await page.begin({ tool: serving.name, question, signal: pageSignal });
        const reply = await ctx.mcpReq.elicitInput(
          { mode: "url", message: question.text, url: opened.url, elicitationId: randomUUID() },
          { timeout, signal },
        );
        if (reply.action !== "accept") {
          return refusalResult({
            question,
            action: reply.action,
            meta: reply._meta,
            answers,
            secret,
          });
        }
        const value = await settleWithin(opened.answer, timeout, signal);
        if (value === undefined) return secretMissing(question);
        answers[question.id] = value;
        secret.add(question.id);
        break;
      }
      const form = elicitationForQuestion(question, error === undefined ? {} : { error });
      if (form.isErr()) return errorResult(form.error.message);
      if (!serving.takesForms()) return formsNotTaken(question);
      // Sent as is rather than with the SDK's elicitInput, which throws (ending the call) when
      // accepted content does not fit the form: the content is checked below, and an answer that
      // does not fit is asked again with the problem, as on 2026-07-28.
      const reply = await ctx.mcpReq.send(
        {
          method: "elicitation/create",
          params: {
            mode: "form",
            message: form.value.message,
            requestedSchema: form.value.requestedSchema,
          },
        },
        { timeout, signal },
      );
      if (reply.action !== "accept") {
        return refusalResult({
          question,
          action: reply.action,
          meta: reply._meta,
          answers,
          secret,
        });
      }
      const answer = answerFromContent(question, form.value, reply.content);
      if (answer.isOk()) {
        answers[question.id] = answer.value;
        break;
      }
      if (attempt >= MAX_ANSWER_ATTEMPTS) return keptFailing(question, answer.error.message);
      error = answer.error.message;
    }
  }
}

/** 2026-07-28: each question is an input-required result; the client retries with the answer. */
async function serveRound(
  serving: Serving,
  args: JsonObject,
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const state = ctx.mcpReq.requestState<RoundState>();
  const digest = argumentsDigest(args);
  if (state !== undefined && !belongs(state, serving.name, digest)) {
    return errorResult(
      "The request state does not belong to this tool call; call the tool again without it.",
    );
  }
  const call = { id: state?.call ?? `mcp-${randomUUID()}`, arguments: args };
  const answers: Record<string, JsonValue> = { ...(state?.answers ?? {}) };
  Object.assign(answers, serving.secrets.answers(call.id));
  const signal = ctx.mcpReq.signal;
  let step = await runTool(serving, call, answers, serving.secrets.ids(call.id), signal);
  let error: string | undefined;
  let attempt = 1;
  const asking = state?.asking;
  const view =
    asking === undefined ? undefined : inputResponse(ctx.mcpReq.inputResponses, asking.id);
  // The tool asks the same question it asked last round: the response answers it.
  if (
    asking !== undefined &&
    view?.kind === "elicit" &&
    step.type === "ask" &&
    step.question.id === asking.id
  ) {
    const { question } = step;
    if (view.action !== "accept") {
      const raw = ctx.mcpReq.inputResponses?.[asking.id];
      const meta = isPlainObject(raw) ? raw._meta : undefined;
      const secret = serving.secrets.ids(call.id);
      serving.secrets.forget(call.id);
      return refusalResult({ question, action: view.action, meta, answers, secret });
    }
    const taken = await takeAnswer(
      serving,
      call.id,
      question,
      asking.reading,
      view.content,
      signal,
    );
    if (taken.type === "result") return ended(serving, call.id, taken.result);
    if (taken.type === "answered") {
      answers[question.id] = taken.value;
      step = await runTool(serving, call, answers, serving.secrets.ids(call.id), signal);
    } else if (asking.attempt >= MAX_ANSWER_ATTEMPTS) {
      return ended(serving, call.id, keptFailing(question, taken.error));
    } else {
      error = taken.error;
      attempt = asking.attempt + 1;
    }
  }
  if (step.type === "done") {
    serving.secrets.forget(call.id);
    return step.result;
  }
  if (Object.keys(answers).length >= maxQuestions(serving)) {
    return ended(serving, call.id, tooManyQuestions(serving));
  }
  const asked = await askRound(serving, {
    call,
    digest,
    answers,
    question: step.question,
    error,
    attempt,
    opensPages: serving.opensPages(ctx),
  });
  // A question that cannot be asked ends the call.
  return isInputRequiredResult(asked) ? asked : ended(serving, call.id, asked);
}

// The call ends with `result`: its secrets go, and its secret pages are told.
function ended(serving: Serving, callId: string, result: CallToolResult): CallToolResult {
  serving.secrets.forget(callId);
  return result;
}

interface RoundAsk {
  readonly call: { readonly id: string };
  readonly digest: string;
  readonly answers: Record<string, JsonValue>;
  readonly question: Question;
  readonly error: string | undefined;
  readonly attempt: number;
  /** Whether the asking client takes URL elicitations. */
  readonly opensPages: boolean;
}

async function askRound(
  serving: Serving,
  ask: RoundAsk,
): Promise<CallToolResult | InputRequiredResult> {
  const { call, question } = ask;
  const mint = (reading: RoundState["asking"]["reading"]) =>
    serving.codec.mint({
      tool: serving.name,
      args: ask.digest,
      call: call.id,
      answers: withoutSecrets(ask.answers, serving.secrets.ids(call.id)),
      asking: { id: question.id, reading, attempt: ask.attempt },
    });
  if (question.answer_type.type === "secret") {
    const page = serving.options.secretPage;
    if (page === undefined) return secretRefused(question);
    if (!ask.opensPages) return secretNoPage(question);
    const opened = await page.begin({
      tool: serving.name,
      question,
      signal: serving.secrets.signal(call.id),
    });
    serving.secrets.expect(call.id, question.id, opened.answer);
    return inputRequired({
      inputRequests: {
        [question.id]: inputRequired.elicitUrl({ message: question.text, url: opened.url }),
      },
      requestState: await mint("secret"),
    });
  }
  const form = elicitationForQuestion(
    question,
    ask.error === undefined ? {} : { error: ask.error },
  );
  if (form.isErr()) return errorResult(form.error.message);
  return inputRequired({
    inputRequests: {
      [question.id]: inputRequired.elicit({
        message: form.value.message,
        requestedSchema: form.value.requestedSchema as never,
      }),
    },
    requestState: await mint(form.value.reading),
  });
}

type Taken =
  | { readonly type: "answered"; readonly value: JsonValue }
  | { readonly type: "retry"; readonly error: string }
  | { readonly type: "result"; readonly result: CallToolResult };

// The answer an accepted response gives: form content read and checked, or a secret collected
// by the host's page (it never crossed the client).
async function takeAnswer(
  serving: Serving,
  callId: string,
  question: Question,
  reading: RoundState["asking"]["reading"],
  content: unknown,
  signal: AbortSignal,
): Promise<Taken> {
  if (reading === "secret") {
    const secret = await serving.secrets.take(callId, question.id, answerTimeout(serving), signal);
    if (secret === undefined) return { type: "result", result: secretMissing(question) };
    return { type: "answered", value: secret };
  }
  const answer = answerFromContent(question, { reading }, content);
  return answer.isOk()
    ? { type: "answered", value: answer.value }
    : { type: "retry", error: answer.error.message };
}

function belongs(state: unknown, tool: string, digest: string): state is RoundState {
  return isPlainObject(state) && state.tool === tool && state.args === digest;
}

/** A digest of the arguments, so state minted for one call is refused on another. */
export function argumentsDigest(args: JsonObject): string {
  return createHash("sha256").update(stableJson(args)).digest("base64url");
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (isPlainObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function withoutSecrets(
  answers: Record<string, JsonValue>,
  secret: ReadonlySet<string>,
): Record<string, JsonValue> {
  return Object.fromEntries(Object.entries(answers).filter(([id]) => !secret.has(id)));
}

function maxQuestions(serving: Serving): number {
  return serving.options.maxQuestionsPerCall ?? 64;
}

function answerTimeout(serving: Serving): number {
  return serving.options.answerTimeoutMs ?? 600_000;
}

function secretRefused(question: Question): CallToolResult {
  return errorResult(
    `Question "${question.id}" asks for a secret. MCP does not allow secrets in a form, and this ` +
      "server has no secret page to collect it; ask for it another way or do without it.",
  );
}

// Checked before a page is made: a page nobody can open would hold its pending answer for nothing.
function secretNoPage(question: Question): CallToolResult {
  return errorResult(
    `Question "${question.id}" asks for a secret. MCP does not allow secrets in a form, and this ` +
      "client cannot open a page to collect it (it does not take URL elicitations); ask for it " +
      "another way or do without it.",
  );
}

function formsNotTaken(question: Question): CallToolResult {
  return errorResult(
    `Question "${question.id}" needs an answer in a form, and this client does not take MCP ` +
      "form elicitations; ask for it another way or do without it.",
  );
}

function secretMissing(question: Question): CallToolResult {
  return errorResult(
    `The secret for question "${question.id}" was not submitted on its page; it was not answered.`,
  );
}

function keptFailing(question: Question, error: string): CallToolResult {
  return errorResult(
    `The answer to question "${question.id}" kept failing validation (${error}); it was not answered.`,
  );
}
