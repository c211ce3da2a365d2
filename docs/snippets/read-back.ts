import { createEvent, FileConversationStore, toMarkdown } from "@jp/conversation";

const store = new FileConversationStore(".jp/conversations");
const conversation = store.create({ title: "Hello" }); // new and not saved yet, named <id>-hello
conversation.stream.startTurn("Hello?");
conversation.stream.append(createEvent("chat_response", { message: "Hi! How can I help?" }));
const saved = await store.save(conversation); // Err({ kind: "conflict" }) if one of that name exists
if (saved.isErr()) throw new Error(saved.error.message);

const loaded = await store.load(conversation.name); // what another process would do
if (loaded.isErr()) throw new Error(loaded.error.message);
const { stream } = loaded.value;
for (const event of stream.events) console.log(event.type); // `events` is a getter: no call
for (const turn of stream.turns()) console.log(`turn ${turn.index}: ${turn.events.length} events`);
console.log(toMarkdown(stream));
