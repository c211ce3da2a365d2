import {
  createCoordinator,
  recordOpenAIResponsesReply,
  toOpenAIResponsesInput,
} from "@jp/builtins";
import { FileConversationStore } from "@jp/conversation";
import { createTerminalPromptBackend } from "@jp/prompt-terminal";
import OpenAI from "openai";

const openai = new OpenAI(); // reads OPENAI_API_KEY
const store = new FileConversationStore(".jp/conversations");
const jp = createCoordinator({ store, prompts: createTerminalPromptBackend() });

jp.stream.startTurn("Help me plan the next release. Ask me what you need to know.");
for (let done = false; !done; ) {
  const response = await openai.responses.create({
    model: "gpt-4.1",
    instructions: "You are a release assistant.",
    tools: jp.providerTools("openai-responses"),
    input: toOpenAIResponsesInput(jp.stream),
  });
  const calls = recordOpenAIResponsesReply(jp.stream, response);
  done = calls.length === 0 || (await jp.run(calls)).endTurn;
}
const saved = await jp.save();
if (saved.isErr()) throw new Error(saved.error.message);
