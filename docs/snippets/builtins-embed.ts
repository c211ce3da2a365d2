// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
import Anthropic from "@anthropic-ai/sdk";
import { FileConversationStore } from "@jp/conversation";
import { createTerminalPromptBackend } from "@jp/prompt-terminal";

// The host's model client, store, person and request settings.
const anthropic = new Anthropic();
const store = new FileConversationStore(".jp/conversations");
const prompts = createTerminalPromptBackend();
const userMessage = "Help me plan the next release. Ask me what you need to know.";
const model = "claude-sonnet-5";
const max_tokens = 4096;

// #region embed
import { createCoordinator, recordAnthropicReply, toAnthropicMessages } from "@jp/builtins";

const jp = createCoordinator({ store, prompts }); // a new conversation from store.create()
jp.stream.startTurn(userMessage);
for (let done = false; !done; ) {
  const reply = await anthropic.messages.create({
    model,
    max_tokens,
    tools: jp.providerTools("anthropic"),
    messages: toAnthropicMessages(jp.stream),
  });
  const calls = recordAnthropicReply(jp.stream, reply);
  done = calls.length === 0 || (await jp.run(calls)).endTurn;
}
const saved = await jp.save(); // Err({ kind: "conflict" }) if another process saved it since
// #endregion
console.log(`saved: ${saved.isOk()}, ${jp.stream.events.length} events`);
