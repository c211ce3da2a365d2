import { createEvent } from "@jp/conversation";
import { expect, it } from "vitest";
import { PostgresConversationStore } from "../src/index.js";
import { describeWithPostgres } from "./support/server.js";

describeWithPostgres("PostgresConversationStore", (ctx) => {
  it("saves a new conversation and loads it back", async () => {
    const store = new PostgresConversationStore(ctx().pool);
    const conversation = store.create({ title: "Hello there", now: new Date(1_700_000_000_000) });
    conversation.stream.startTurn("Hi");
    conversation.stream.append(createEvent("chat_response", { message: "Hello" }));
    const saved = await store.save(conversation);
    expect(saved.isOk()).toBe(true);
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    expect(loaded.stream.toJSON()).toEqual(conversation.stream.toJSON());
    expect(loaded.revision).toBe(conversation.revision);
    expect((await store.list())._unsafeUnwrap()).toEqual([conversation.name]);
  });
});
