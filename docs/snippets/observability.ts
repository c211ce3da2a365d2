// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
import { ConversationStream } from "@jp/conversation";
import { builtinExecutorSource, ToolCoordinator, TurnState } from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { needsInput, success } from "@jp/tool";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

// The host's OpenTelemetry set-up (here the SDK exporting to memory, to print what was traced).
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
// A tool that asks one question, and a person who takes a moment to answer it.
const stream = ConversationStream.empty();
stream.startTurn("Deploy the release.");
const coordinator = new ToolCoordinator({
  stream,
  tools: { deploy: { run: "unattended" } },
  executors: builtinExecutorSource({
    deploy: {
      execute: ({ answers }) =>
        answers.env === undefined
          ? needsInput({
              id: "env",
              text: "Where to?",
              answer_type: { type: "select", options: ["staging", "production"] },
            })
          : success(`deployed to ${String(answers.env)}`),
    },
  }),
  prompts: new MockPromptBackend({
    questions: [
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        return { type: "answer", value: "staging" };
      },
    ],
  }),
});
const calls = [{ id: "call_1", name: "deploy", arguments: {} }];
const turn = new TurnState();

// #region observability
import { trace } from "@opentelemetry/api";
import { coordinatorEvents, traceCoordinator } from "@jp/coordinator";

trace.setGlobalTracerProvider(provider); // your OpenTelemetry set-up, as before
// Spans: one per tool call, one per question (its route, its outcome, the person's answer time).
const stopTracing = traceCoordinator(coordinator, { tracer: trace.getTracer("my-agent") });

// A UI: the events as they happen. Aborting ends the loop after the events emitted until then.
const controller = new AbortController();
const ui = (async () => {
  for await (const event of coordinatorEvents(coordinator, { signal: controller.signal })) {
    if (event.type === "tool-state") console.log(`${event.tool_name}: ${event.state}`);
    if (event.type === "events-dropped") console.log(`(${event.count} events skipped)`);
  }
})();

await coordinator.run(calls, { turn });
controller.abort();
await ui;
stopTracing();
// #endregion

for (const span of exporter.getFinishedSpans()) {
  const { attributes: a } = span;
  const detail =
    a["jp.question.route"] === undefined
      ? `${a["jp.tool_call.final_state"]}`
      : `route=${a["jp.question.route"]} outcome=${a["jp.question.outcome"]}, the person took ${a["jp.question.answer_ms"]} ms`;
  console.log(`span ${span.name}: ${detail}`);
}
