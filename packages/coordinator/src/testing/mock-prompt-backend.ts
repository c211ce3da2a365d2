import type {
  DeliverPromptRequest,
  DeliverReply,
  LaterReply,
  PermissionPromptRequest,
  PermissionReply,
  PromptBackend,
  PromptRequest,
  QuestionPromptRequest,
  QuestionReply,
  ReplyFor,
} from "../backends/prompt-backend.js";

/** A scripted reply: a value, or a function of the request (may wait, e.g. for the signal). */
export type Scripted<R extends PromptRequest> =
  | ReplyFor<R>
  | LaterReply
  | ((
      request: R,
      signal: AbortSignal,
    ) => ReplyFor<R> | LaterReply | Promise<ReplyFor<R> | LaterReply>);

/** The replies a {@link MockPromptBackend} gives, per prompt kind, in order. */
export interface PromptScript {
  readonly questions?: readonly Scripted<QuestionPromptRequest>[];
  readonly permissions?: readonly Scripted<PermissionPromptRequest>[];
  readonly deliveries?: readonly Scripted<DeliverPromptRequest>[];
}

/** Options of {@link MockPromptBackend}. */
export interface MockPromptBackendOptions {
  /** Whether a human is reachable (default `true`). */
  readonly reachable?: boolean;
}

const KIND_TO_KEY = {
  question: "questions",
  permission: "permissions",
  deliver: "deliveries",
} as const;

/**
 * A scripted human for tests. Each prompt kind takes the next scripted reply; every request is
 * kept in {@link MockPromptBackend.requests}. A prompt with no reply left rejects with an error
 * that says which prompt it was (the coordinator records that as a prompt failure), and
 * {@link MockPromptBackend.assertScriptUsed} reports it too.
 *
 * @example
 * const human = new MockPromptBackend({ questions: [{ type: "answer", value: true }] });
 */
export class MockPromptBackend implements PromptBackend {
  /** Every prompt shown, in order. */
  readonly requests: PromptRequest[] = [];
  /** Prompts that found no scripted reply. */
  readonly unscripted: PromptRequest[] = [];
  // One queue per kind; `ask` pairs each request with its own kind's queue.
  readonly #queues: Record<(typeof KIND_TO_KEY)[keyof typeof KIND_TO_KEY], unknown[]>;
  readonly #reachable: boolean;
  #active = 0;
  #maxActive = 0;

  constructor(script: PromptScript = {}, options: MockPromptBackendOptions = {}) {
    this.#queues = {
      questions: [...(script.questions ?? [])],
      permissions: [...(script.permissions ?? [])],
      deliveries: [...(script.deliveries ?? [])],
    };
    this.#reachable = options.reachable ?? true;
  }

  /** The most prompts that were ever open at once (the coordinator keeps this at 1). */
  get maxConcurrentPrompts(): number {
    return this.#maxActive;
  }

  /** The question prompts shown, in order. */
  get questions(): QuestionPromptRequest[] {
    return this.requests.filter((r): r is QuestionPromptRequest => r.kind === "question");
  }

  isHumanReachable(): boolean {
    return this.#reachable;
  }

  async ask<R extends PromptRequest>(
    request: R,
    options: { signal: AbortSignal },
  ): Promise<ReplyFor<R> | LaterReply> {
    this.requests.push(request);
    this.#active++;
    this.#maxActive = Math.max(this.#maxActive, this.#active);
    try {
      const next = this.#queues[KIND_TO_KEY[request.kind]].shift() as Scripted<R> | undefined;
      if (next === undefined) {
        this.unscripted.push(request);
        throw new Error(`MockPromptBackend: no scripted reply left for ${describe(request)}`);
      }
      return typeof next === "function" ? await next(request, options.signal) : next;
    } finally {
      this.#active--;
    }
  }

  /** Throws if a prompt found no reply, or if scripted replies were never used. */
  assertScriptUsed(): void {
    const left = Object.entries(this.#queues).filter(([, queue]) => queue.length > 0);
    const problems = [
      ...this.unscripted.map((r) => `no scripted reply for ${describe(r)}`),
      ...left.map(([kind, queue]) => `${queue.length} scripted ${kind} repl(ies) never used`),
    ];
    if (problems.length > 0) throw new Error(`MockPromptBackend: ${problems.join("; ")}`);
  }
}

/** A reply that waits until the prompt is aborted, then reports the human cancelled. */
export function waitForAbort<R extends QuestionReply | PermissionReply | DeliverReply>(): (
  request: PromptRequest,
  signal: AbortSignal,
) => Promise<R> {
  return (_request, signal) =>
    new Promise<R>((resolve) => {
      const cancel = () => resolve({ type: "cancelled" } as R);
      if (signal.aborted) cancel();
      else signal.addEventListener("abort", cancel, { once: true });
    });
}

function describe(request: PromptRequest): string {
  const base = `the ${request.kind} prompt of tool ${request.tool_name} (call ${request.tool_call_id})`;
  return request.kind === "question" ? `${base}: "${request.question.text}"` : base;
}
