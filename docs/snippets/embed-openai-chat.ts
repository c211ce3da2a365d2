import { createCoordinator, recordOpenAIChatReply, toOpenAIChatMessages } from "@jp/builtins";
import { FileConversationStore } from "@jp/conversation";
import { createTerminalPromptBackend } from "@jp/prompt-terminal";
import OpenAI from "openai";

const openai = new OpenAI(); // reads OPENAI_API_KEY
const store = new FileConversationStore(".jp/conversations");
const jp = createCoordinator({ store, prompts: createTerminalPromptBackend() });

jp.stream.startTurn("Help me plan the next release. Ask me what you need to know.");
for (let done = false; !done; ) {
  const completion = await openai.chat.completions.create({
    model: "gpt-4.1",
    tools: jp.providerTools("openai-chat"),
    messages: [
      { role: "system", content: "You are a release assistant." },
      ...toOpenAIChatMessages(jp.stream),
    ],
  });
  const calls = recordOpenAIChatReply(jp.stream, completion);
  done = calls.length === 0 || (await jp.run(calls)).endTurn;
}
const saved = await jp.save();
if (saved.isErr()) throw new Error(saved.error.message);
