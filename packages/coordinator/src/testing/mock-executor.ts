import type { InquirySource } from "@jp/conversation";
import type { Outcome } from "@jp/tool";
import type {
  Answers,
  BuiltinOutcome,
  ExecuteInput,
  Executor,
  ExecutorResult,
  ExecutorSource,
  ToolCall,
} from "../backends/executor.js";

/** One pass of a scripted tool: a fixed result, or a function of the pass's input. */
export type MockStep =
  | ExecutorResult
  | Outcome
  | ((
      input: ExecuteInput,
    ) => ExecutorResult | BuiltinOutcome | Promise<ExecutorResult | BuiltinOutcome>);

/** One recorded pass of a mock tool. */
export interface MockExecution {
  readonly call: ToolCall;
  readonly answers: Answers;
}

/**
 * A scripted tool for tests. Either a list of steps taken one per pass (an error names the tool
 * when it runs out), or one function called on every pass. Plain `Outcome`s are accepted:
 * `needs_input` questions are then recorded with the source given (default the tool's name).
 *
 * @example
 * const confirm = new MockExecutor((input) =>
 *   input.answers.confirm === undefined
 *     ? { type: "needs_input", question: { id: "confirm", text: "Go?", answer_type: { type: "boolean" } } }
 *     : { type: "success", content: `confirmed: ${input.answers.confirm}` });
 */
export class MockExecutor implements Executor {
  /** Every pass, with the answers it received. */
  readonly executions: MockExecution[] = [];
  readonly #steps: MockStep[] | undefined;
  readonly #each: Extract<MockStep, (...args: never[]) => unknown> | undefined;
  readonly #source: InquirySource | undefined;

  constructor(
    steps: readonly MockStep[] | Extract<MockStep, (...args: never[]) => unknown>,
    options: { source?: InquirySource } = {},
  ) {
    if (typeof steps === "function") this.#each = steps;
    else this.#steps = [...steps];
    this.#source = options.source;
  }

  async execute(input: ExecuteInput): Promise<ExecutorResult> {
    this.executions.push({ call: input.call, answers: input.answers });
    const step = this.#each ?? this.#steps?.shift();
    if (step === undefined) {
      throw new Error(
        `MockExecutor: no scripted result left for tool ${input.call.name} (pass ${this.executions.length})`,
      );
    }
    const result = typeof step === "function" ? await step(input) : step;
    return this.#toResult(input.call.name, result);
  }

  #toResult(name: string, result: ExecutorResult | BuiltinOutcome): ExecutorResult {
    switch (result.type) {
      case "completed":
        return result;
      case "success":
        return { type: "completed", content: result.content, is_error: false };
      case "error":
        return { type: "completed", content: result.message, is_error: true };
      case "needs_input": {
        const source =
          "source" in result ? result.source : (this.#source ?? { source: "tool", name });
        return { ...result, source } as ExecutorResult;
      }
    }
  }
}

/**
 * Tool name → executor, for tests. Unknown names are "not available", as a real source says.
 *
 * @example
 * const executors = new MockExecutorSource({ confirm: new MockExecutor([...]) });
 */
export class MockExecutorSource implements ExecutorSource {
  readonly #executors: Map<string, Executor>;

  constructor(executors: Readonly<Record<string, Executor>>) {
    this.#executors = new Map(Object.entries(executors));
  }

  executorFor(call: ToolCall): Executor | undefined {
    return this.#executors.get(call.name);
  }
}
