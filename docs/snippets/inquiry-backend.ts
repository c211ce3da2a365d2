import { createCoordinator, createOpenAIChatInquiryBackend } from "@jp/builtins";
import { ConversationStream } from "@jp/conversation";
import type { BuiltinTool, ToolCall } from "@jp/coordinator";
import { needsInput, success } from "@jp/tool";
import OpenAI from "openai";

// Your own tool, which asks which region to deploy to.
const deploy: BuiltinTool = {
  execute: ({ answers }) =>
    answers.region === undefined
      ? needsInput({
          id: "region",
          text: "Which region?",
          answer_type: { type: "select", options: ["eu", "us"] },
        })
      : success(`deployed to ${String(answers.region)}`),
};
const stream = ConversationStream.empty();
stream.startTurn("Deploy the app.");

// #region inquiry
const inquiries = createOpenAIChatInquiryBackend({
  client: new OpenAI(),
  model: "gpt-4.1-mini", // a cheaper model is usually enough
});
const jp = createCoordinator({
  stream,
  inquiries,
  // The region question goes to the model, whoever is at the terminal.
  tools: { deploy: { run: "unattended", questions: { region: { target: "assistant" } } } },
  executors: { deploy },
});
// A ToolCall is what the coordinator runs: { id, name, arguments } from the model's reply.
const call: ToolCall = { id: "call_1", name: "deploy", arguments: {} };
const { responses } = await jp.run([call]);
// #endregion

console.log(responses[0]?.content);
if (responses[0]?.content !== "deployed to eu" && responses[0]?.content !== "deployed to us") {
  throw new Error(`not answered by the model: ${responses[0]?.content}`);
}
