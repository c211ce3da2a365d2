import Anthropic from "@anthropic-ai/sdk";
import { createCoordinator, recordAnthropicReply, toAnthropicMessages } from "@jp/builtins";
import { FileConversationStore } from "@jp/conversation";
import { createTerminalPromptBackend } from "@jp/prompt-terminal";

const anthropic = new Anthropic(); // your model client, as before (reads ANTHROPIC_API_KEY)
const store = new FileConversationStore(".jp/conversations");
const jp = createCoordinator({ store, prompts: createTerminalPromptBackend() });

jp.stream.startTurn("Help me plan the next release. Ask me what you need to know.");
for (let done = false; !done; ) {
  const reply = await anthropic.messages.create({
    model: "claude-sonnet-5",
    max_tokens: 4096,
    tools: jp.providerTools("anthropic"), // ask_user, and your tools
    messages: toAnthropicMessages(jp.stream),
  });
  const calls = recordAnthropicReply(jp.stream, reply); // the reply, recorded
  done = calls.length === 0 || (await jp.run(calls)).endTurn; // asks, records, answers each call
}
const saved = await jp.save(); // Err({ kind: "conflict" }) if another process saved it meanwhile
if (saved.isErr()) throw new Error(saved.error.message);
