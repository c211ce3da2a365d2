import { randomUUID } from "node:crypto";
import { answerPendingPrompt, TurnState } from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { expect, it } from "vitest";
import { createInboxPrompts, PostgresConversationStore, PostgresInbox } from "../src/index.js";
import { describeWithPostgres } from "./support/server.js";
import { coordinatorFor, newConversation, suspendAt } from "./support/turns.js";

// After every flow the whole server is searched for the secret: a pg_dump of the database, the
// server log (every statement and its parameters are logged), and every file of the data
// directory after a CHECKPOINT, write-ahead log included.
describeWithPostgres(
  "secrets never enter the database",
  (ctx) => {
    const setup = () => ({
      store: new PostgresConversationStore(ctx().pool),
      inbox: new PostgresInbox(ctx().pool),
    });

    it("a suspended secret is listed, refused by the inbox and by a saved stream, and answered in memory", async () => {
      const secret = `pw-${randomUUID()}`;
      const { store, inbox } = setup();
      const conversation = newConversation(store, "secret");
      const run = await suspendAt(conversation, "login");
      (await store.save(conversation))._unsafeUnwrap();
      const promptId = run.pending[0]?.prompt_id as string;
      expect((await inbox.get(conversation.name, promptId))._unsafeUnwrap()).toMatchObject({
        secret: true,
        answered: false,
      });

      const refused = await inbox.answer({
        conversation: conversation.name,
        promptId,
        reply: { type: "answer", value: secret },
      });
      expect(refused._unsafeUnwrapErr().kind).toBe("secret_not_stored");
      expect(refused._unsafeUnwrapErr().message).not.toContain(secret);

      const loaded = (await store.load(conversation.name))._unsafeUnwrap();
      const inStream = answerPendingPrompt(loaded.stream, promptId, {
        type: "answer",
        value: secret,
      });
      expect(inStream._unsafeUnwrapErr().kind).toBe("secret_not_stored");
      (await store.save(loaded))._unsafeUnwrap();

      // The one path: the resuming worker has the secret in memory.
      const resumed = await coordinatorFor(loaded).resume({ answers: { [promptId]: secret } });
      expect(resumed.responses.map((r) => r.content)).toEqual([
        `logged in (${secret.length} characters)`,
      ]);
      (await store.save(loaded))._unsafeUnwrap();
      expect(await ctx().server.holds(secret)).toEqual([]);
    });

    it("a live run asks a secret at the host's own prompt backend, never through the inbox", async () => {
      const secret = `pw-${randomUUID()}`;
      const { store, inbox } = setup();
      const conversation = newConversation(store, "secretlive");
      conversation.stream.startTurn("Log in");
      const local = new MockPromptBackend({ questions: [{ type: "answer", value: secret }] });
      const prompts = createInboxPrompts({
        inbox,
        conversation: conversation.name,
        secrets: local,
      });
      const result = await coordinatorFor(conversation, prompts).run(
        [{ id: "call_1", name: "login", arguments: {} }],
        { turn: new TurnState() },
      );
      expect(local.requests).toHaveLength(1);
      expect(result.responses).toHaveLength(1);
      (await store.save(conversation))._unsafeUnwrap();
      expect(await ctx().server.holds(secret)).toEqual([]);
      await inbox.close();
    });

    it("without a host prompt for secrets, a live run suspends at the secret", async () => {
      const secret = `pw-${randomUUID()}`;
      const { store, inbox } = setup();
      const conversation = newConversation(store, "secretlater");
      conversation.stream.startTurn("Log in");
      const prompts = createInboxPrompts({ inbox, conversation: conversation.name });
      const result = await coordinatorFor(conversation, prompts).run(
        [{ id: "call_1", name: "login", arguments: {} }],
        { turn: new TurnState() },
      );
      expect(result.pending).toHaveLength(1);
      (await store.save(conversation))._unsafeUnwrap();
      const promptId = result.pending[0]?.prompt_id as string;
      const refused = await inbox.answer({
        conversation: conversation.name,
        promptId,
        reply: { type: "answer", value: secret },
      });
      expect(refused._unsafeUnwrapErr().kind).toBe("secret_not_stored");
      const loaded = (await store.load(conversation.name))._unsafeUnwrap();
      await coordinatorFor(loaded).resume({ answers: { [promptId]: secret } });
      (await store.save(loaded))._unsafeUnwrap();
      expect(await ctx().server.holds(secret)).toEqual([]);
    });

    it("the scan finds a value that did reach the database (the check can fail)", async () => {
      const marker = `visible-${randomUUID()}`;
      const { store } = setup();
      const conversation = newConversation(store, "control");
      conversation.stream.startTurn(marker);
      (await store.save(conversation))._unsafeUnwrap();
      const found = await ctx().server.holds(marker);
      expect(found).toContain("pg_dump");
      expect(found).toContain("log");
      expect(found.some((file) => file.startsWith("data/pg_wal/"))).toBe(true);
      expect(found.some((file) => file.startsWith("data/base/"))).toBe(true);
    });
  },
  { logStatements: true },
);
