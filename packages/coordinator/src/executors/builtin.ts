import type { InquirySource, JsonObject } from "@jp/conversation";
import { decodeQuestion, type Question } from "@jp/tool";
import { ok } from "neverthrow";
import type {
  Answers,
  BuiltinOutcome,
  BuiltinTool,
  BuiltinToolInput,
  ExecuteInput,
  Executor,
  ExecutorResult,
  ExecutorSource,
  RunStop,
} from "../backends/executor.js";
import { layerToolsConfigs } from "../config/layering.js";
import type { ToolConfig, ToolsConfig } from "../config/schema.js";
import { PassInput, SignalOnRead } from "../coordinator/run-abort.js";

/** The recorded source of a built-in's questions: its own declaration, else the tool. */
export function builtinInquirySource(name: string, tool: BuiltinTool): InquirySource {
  return tool.inquirySource?.(name) ?? { source: "tool", name };
}

/** JP's text for a built-in's error: the message, then the trace when there is one. */
function errorContent(message: string, trace: readonly string[]): string {
  return trace.length === 0 ? message : `${message}\n\nTrace:\n${trace.join("\n")}`;
}

function toExecutorResult(
  name: string,
  tool: BuiltinTool,
  outcome: BuiltinOutcome,
): ExecutorResult {
  switch (outcome.type) {
    case "success":
      return { type: "completed", content: outcome.content, is_error: false };
    case "error":
      return {
        type: "completed",
        content: errorContent(outcome.message, outcome.trace),
        is_error: true,
      };
    case "needs_input": {
      // The question's id becomes part of the recorded inquiry id: check it like foreign input.
      const question = looksValid(outcome.question)
        ? ok(outcome.question)
        : decodeQuestion(outcome.question);
      if (question.isErr()) {
        const content = `Tool '${name}' asked an invalid question: ${question.error.message}`;
        return { type: "completed", content, is_error: true };
      }
      const source = builtinInquirySource(name, tool);
      return "form" in outcome
        ? { type: "needs_input", question: question.value, source, form: outcome.form }
        : { type: "needs_input", question: question.value, source };
    }
  }
}

// Built-ins are typed against `Question`, so a plain shape check settles the common case without
// a schema pass; anything odd goes through the full decoder for its normalisation and message.
function looksValid(question: Question): boolean {
  const { id, text, answer_type } = question as Partial<Question>;
  return (
    typeof id === "string" &&
    id !== "" &&
    !id.includes(".") &&
    typeof text === "string" &&
    typeof answer_type === "object" &&
    answer_type !== null &&
    !("pre_amble" in question)
  );
}

// Passes the signal on unread: the coordinator makes a run's signal only for code that reads it.
class BuiltinPass extends SignalOnRead implements BuiltinToolInput {
  readonly arguments: JsonObject;
  readonly answers: Answers;
  readonly answeredByDefault?: ReadonlySet<string>;
  readonly stop?: RunStop;

  constructor(input: ExecuteInput) {
    super(input);
    this.arguments = input.call.arguments;
    this.answers = input.answers;
    if (input.answeredByDefault !== undefined) this.answeredByDefault = input.answeredByDefault;
    if (input.stop !== undefined) this.stop = input.stop;
  }
}

/** Runs a {@link BuiltinTool} as an {@link Executor}. */
export function builtinExecutor(name: string, tool: BuiltinTool): Executor {
  return {
    async execute(input) {
      const ran = tool.execute(input instanceof PassInput ? input : new BuiltinPass(input));
      // Most built-ins answer synchronously: no extra tick for them.
      return toExecutorResult(name, tool, ran instanceof Promise ? await ran : ran);
    },
  };
}

/**
 * An {@link ExecutorSource} for built-in tools, looked up by the tool's configured name. Each
 * tool's registered `config` is offered under that name (`toolConfigs()`), and `ToolCoordinator`
 * layers it under the host's `tools`: `ask_user` needs no `builtinToolConfigs()` to run without a
 * permission prompt.
 *
 * @example
 * const executors = builtinExecutorSource({ ask_user: askUser });
 */
export function builtinExecutorSource(
  tools: Readonly<Record<string, BuiltinTool>>,
): ExecutorSource {
  const executors = new Map(
    Object.entries(tools).map(([name, tool]) => [name, builtinExecutor(name, tool)]),
  );
  const configs: [string, ToolConfig][] = Object.entries(tools).flatMap(([name, tool]) =>
    tool.config === undefined ? [] : [[name, tool.config]],
  );
  return {
    executorFor: (call) => executors.get(call.name),
    // A fresh map each time: the coordinator layers it, a host may change what it gets.
    toolConfigs: () => layerToolsConfigs(Object.fromEntries(configs)),
  };
}

/**
 * Tries each source in order; the first that has an executor for the call wins, and so does its
 * registered configuration for a tool two sources both configure.
 */
export function combineExecutorSources(...sources: readonly ExecutorSource[]): ExecutorSource {
  return {
    executorFor(call, config) {
      for (const source of sources) {
        const executor = source.executorFor(call, config);
        if (executor !== undefined) return executor;
      }
      return undefined;
    },
    toolConfigs: (): ToolsConfig =>
      layerToolsConfigs(...sources.map((source) => source.toolConfigs?.()).reverse()),
  };
}
