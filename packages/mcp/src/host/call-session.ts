import type { JsonObject } from "@jp/conversation";
import type { Answers, ExecuteInput, ExecutorResult, RunStop, ToolCall } from "@jp/coordinator";
import { type DecidedBy, decisionFor, decisionMeta } from "../decision.js";
import {
  type Asker,
  type ElicitationPlan,
  type ElicitResponse,
  planIds,
  QuestionIds,
  stepElicitation,
} from "./elicitation.js";
import type { SuspendedRound } from "./suspended-call.js";

/** What every tool call in flight on an MCP connection offers the connection. */
export interface CallSession {
  /** Question ids a person answered at a prompt in this call. */
  readonly prompted: Set<string>;
  /** The call's question ids, with what each opening question asked. */
  readonly ids: QuestionIds;
  /** Rounds of pages the call has had (see push-call.ts); 0 where there are none. */
  readonly pageRounds: number;
  /** The arguments the call runs with (as the coordinator gave them: edited ones included). */
  readonly arguments: JsonObject;
  /** The server's name of the tool. */
  readonly remoteName: string;
  /** Whether the tool's result (or its failure) has been handed to the coordinator. */
  readonly finished: boolean;
  /** One pass of the tool: its result, or the next question. */
  pass(input: ExecuteInput): Promise<ExecutorResult>;
  /** The coordinator closed question `questionId` without an answer, for `reason`. */
  closed(questionId: string, reason: string): void;
  /** The coordinator is done with the call: release whatever still waits. */
  end(): void;
  /**
   * The coordinator left the call waiting at a question (a durable suspension): release what
   * cannot wait, and return the input-required round the call waits in, to record.
   */
  suspend(): SuspendedRound | undefined;
}

/** What a session needs from its connection. */
export interface SessionHost {
  readonly server: string;
  /** Opens a URL the person consented to; absent when URL mode is not offered. */
  readonly openUrl: ((url: string) => Promise<void> | void) | undefined;
  /** How long the server may work between two answers before the call fails. */
  readonly serverTimeoutMs: number;
  /**
   * How long the server may take to answer after the person opened a page it asked for: the
   * person works on the page meanwhile (at least `serverTimeoutMs`).
   */
  readonly pageTimeoutMs: number;
  /** The longest text of a tool's result the model is given, in characters. */
  readonly maxResultLength: number;
}

/** Whether `response` to `plan` sent the person to a page (an accepted URL elicitation). */
export function openedPage(plan: ElicitationPlan, response: ElicitResponse): boolean {
  return plan.mode === "url" && response.action === "accept";
}

/** One elicitation waiting for its answers. */
export interface PendingElicitation {
  readonly plan: ElicitationPlan;
  /** Sends the response to the server; later calls do nothing. */
  readonly respond: (response: ElicitResponse) => void;
}

/**
 * The state one call's elicitations share in both eras: question ids unique within the call,
 * the questions a person answered, and the walk of one elicitation's questions.
 */
export abstract class ElicitingCall implements CallSession {
  readonly prompted: Set<string>;
  ids: QuestionIds;
  readonly asker: Asker;

  constructor(
    protected readonly host: SessionHost,
    protected readonly call: ToolCall,
    readonly remoteName: string,
    prompted: Set<string> = new Set(),
    /** What the opening questions of the call's earlier runs asked (see {@link QuestionIds}). */
    gates: Readonly<Record<string, string>> = {},
    /** Ids the call's earlier runs used up (see {@link QuestionIds.spend}). */
    spent: readonly string[] = [],
  ) {
    this.asker = { server: host.server, tool: remoteName };
    this.prompted = prompted;
    this.ids = new QuestionIds([], gates, spent);
  }

  abstract get finished(): boolean;
  abstract get pageRounds(): number;

  /** The coordinator's id of this tool call. */
  get callId(): string {
    return this.call.id;
  }

  get arguments(): JsonObject {
    return this.call.arguments as JsonObject;
  }

  abstract pass(input: ExecuteInput): Promise<ExecutorResult>;
  abstract closed(questionId: string, reason: string): void;
  abstract end(): void;
  abstract suspend(): SuspendedRound | undefined;

  /**
   * Walks one elicitation: the next question to ask, or `undefined` once its response is sent.
   * Only a URL the person consented to open is awaited (the response is sent once it opened).
   */
  protected walk(
    pending: PendingElicitation,
    answers: Answers,
  ): ExecutorResult | Promise<undefined> | undefined {
    const step = stepElicitation(pending.plan, answers, this.prompted);
    if (step.type === "ask") {
      return {
        type: "needs_input",
        question: step.question,
        source: { source: "tool", name: this.call.name },
        form: step.form,
      };
    }
    if (step.open !== undefined) return this.#open(pending, step.open, step.response);
    pending.respond(step.response);
    return undefined;
  }

  async #open(
    pending: PendingElicitation,
    url: string,
    response: ElicitResponse,
  ): Promise<undefined> {
    try {
      await this.host.openUrl?.(url);
    } catch {
      // The person said yes but the page did not open: nobody decided against it.
      pending.respond({ action: "cancel", _meta: decisionMeta("host", "backend_error") });
      return undefined;
    }
    pending.respond(response);
    return undefined;
  }

  /** The response for a question the coordinator closed, or undefined when it is asked again. */
  protected closingResponse(
    pending: PendingElicitation,
    questionId: string,
    reason: string,
  ): ElicitResponse | undefined {
    if (!planIds(pending.plan).includes(questionId)) return undefined;
    const decision = decisionFor(reason);
    if (decision === undefined) return undefined;
    return { action: decision.action, _meta: decisionMeta(decision.by, reason) };
  }

  /** The tool failed to run on the server: a result the model can read. */
  protected failed(message: string): ExecutorResult {
    return {
      type: "completed",
      content: `MCP server "${this.host.server}" could not run its tool "${this.remoteName}": ${message}`,
      is_error: true,
    };
  }
}

/**
 * `work`, or its rejection with the run's reason as soon as the run stops first. A page's
 * opening is the host's code (`openUrl`): one that never settles must not hold the call, and the
 * calls waiting behind it, past the run's stop. What `work` does later is not awaited.
 */
export function untilStopped<T>(work: Promise<T>, stop: RunStop): Promise<T> {
  if (stop.aborted) return Promise.reject(stop.reason);
  return new Promise<T>((resolve, reject) => {
    const forget = stop.onAbort(reject);
    work.then(
      (value) => {
        forget();
        resolve(value);
      },
      (error: unknown) => {
        forget();
        reject(error);
      },
    );
  });
}

/** A cancel that nobody chose, for requests the call leaves behind. */
export function hostCancel(reason: string, by: DecidedBy = "host"): ElicitResponse {
  return { action: "cancel", _meta: decisionMeta(by, reason) };
}
