import { createEvent, type StreamEvent } from "@jp/conversation";
import { expect, it } from "vitest";
import { PostgresConversationStore, PostgresInbox } from "../src/index.js";
import { answerInTransaction } from "../src/internal/answer.js";
import { inTransaction, namesFor } from "../src/internal/sql.js";
import { describeWithPostgres } from "./support/server.js";
import { coordinatorFor, newConversation, suspendAt } from "./support/turns.js";

// JSON.parse reads an integer past 2^53 rounded and `-0.0` as 0. Events stored with such numbers
// (a tool call's arguments holding a Discord id, as JP writes them) keep them: a row replaced by
// a save or an answer is written from its text, not from the values JSON.parse made of it.

const BIG = "12345678901234567891";
const ARGUMENTS = `{"user":"ada","id":${BIG},"z":-0.0,"ids":[${BIG},-0.0],"plain":[1,-0.5,3e10]}`;
const CALL =
  '{"timestamp":"2026-04-10 17:04:25.0","type":"tool_call_request","id":"call_1",' +
  `"name":"lookup","arguments":${ARGUMENTS}}`;

describeWithPostgres("numbers JSON.parse does not read exactly", (ctx) => {
  const store = () => new PostgresConversationStore(ctx().pool);

  const rowTexts = async (name: string) =>
    (
      await ctx().pool.query<{ seq: number; event: string }>(
        "SELECT seq, event::text AS event FROM jp.events WHERE conversation = $1 ORDER BY seq",
        [name],
      )
    ).rows.map((r) => r.event);

  // A saved conversation whose event 1 is `CALL`, as text already in the database (transferred
  // from a JP file, written by another process): values made in memory are already rounded.
  async function stored() {
    const s = store();
    const conversation = newConversation(s, "exact");
    conversation.stream.startTurn("Look it up");
    conversation.stream.append(
      createEvent("tool_call_request", { id: "call_1", name: "lookup", arguments: {} }),
    );
    (await s.save(conversation))._unsafeUnwrap();
    await ctx().pool.query(
      "UPDATE jp.events SET event = $2::json WHERE conversation = $1 AND seq = 2",
      [conversation.name, CALL],
    );
    return { s, name: conversation.name };
  }

  it("a row whose metadata setMetadata changed keeps its numbers, and loads the same again", async () => {
    const { s, name } = await stored();
    const loaded = (await s.load(name))._unsafeUnwrap();
    expect((loaded.stream.events[2] as { type: string }).type).toBe("tool_call_request");
    loaded.stream.setMetadata(2, "pending", { v: 1, at: "now" })._unsafeUnwrap();
    (await s.save(loaded))._unsafeUnwrap();

    const written = (await rowTexts(name))[2] as string;
    expect(written).toBe(`${CALL.slice(0, -1)},"metadata":{"pending":{"v":1,"at":"now"}}}`);
    expect(written).toContain(`"id":${BIG}`);
    expect(written).toContain('"z":-0.0');

    // A second load reads the same, and clearing the metadata gives the row as it was.
    const again = (await store().load(name))._unsafeUnwrap();
    expect(again.stream.toJSON()).toEqual(loaded.stream.toJSON());
    again.stream.setMetadata(2, "pending", undefined)._unsafeUnwrap();
    (await store().save(again))._unsafeUnwrap();
    expect((await rowTexts(name))[2]).toBe(CALL);
  });

  it("a stream written whole (not loaded by this store) writes such rows as their text", async () => {
    const { name } = await stored();
    const loaded = (await store().load(name))._unsafeUnwrap();
    loaded.stream.setMetadata(2, "k", true)._unsafeUnwrap();
    const other = store();
    const current = (await other.revision(name))._unsafeUnwrap();
    (await other.save(loaded, { expectedRevision: current }))._unsafeUnwrap();
    expect((await rowTexts(name))[2]).toBe(`${CALL.slice(0, -1)},"metadata":{"k":true}}`);
  });

  it("an unchanged row stays byte for byte as it is when others are appended or replaced", async () => {
    const { s, name } = await stored();
    const before = await rowTexts(name);
    const loaded = (await s.load(name))._unsafeUnwrap();
    loaded.stream.append(
      createEvent("tool_call_response", { id: "call_1", content: "found", is_error: false }),
    );
    loaded.stream.setMetadata(0, "cache_breakpoint", true)._unsafeUnwrap();
    (await s.save(loaded))._unsafeUnwrap();
    const after = await rowTexts(name);
    expect(after).toHaveLength(before.length + 1);
    expect(after[2]).toBe(CALL);
    expect(after.slice(1, 3)).toEqual(before.slice(1, 3));
  });

  // A saved turn suspended at a question of a call whose arguments hold `ARGUMENTS` as a JP file
  // would hold them.
  async function suspendedWithNumbers() {
    const s = store();
    const conversation = newConversation(s, "exact-answer");
    const run = await suspendAt(conversation, "asker");
    (await s.save(conversation))._unsafeUnwrap();
    const promptId = (run.pending[0] as { prompt_id: string }).prompt_id;
    const index = conversation.stream.events.findIndex(
      (e: StreamEvent) => e.type === "tool_call_request",
    );
    await ctx().pool.query(
      `UPDATE jp.events SET event = replace(event::text, '"arguments":{}', $3)::json
        WHERE conversation = $1 AND seq = $2`,
      [conversation.name, index, `"arguments":${ARGUMENTS}`],
    );
    expect((await rowTexts(conversation.name))[index]).toContain(ARGUMENTS);
    return { s, name: conversation.name, promptId, index };
  }

  it("answering a suspended prompt from the inbox keeps the call's numbers", async () => {
    const { s, name, promptId, index } = await suspendedWithNumbers();
    const inbox = new PostgresInbox(ctx().pool);
    const reply = { type: "answer", value: true } as const;
    (await inbox.answer({ conversation: name, promptId, reply }))._unsafeUnwrap();
    const answered = (await rowTexts(name))[index] as string;
    expect(answered).toContain(ARGUMENTS);
    expect(answered).toContain('"reply":{"type":"answer","value":true}');

    // Resumed and saved: the coordinator clears the marker with setMetadata.
    const loaded = (await s.load(name))._unsafeUnwrap();
    await coordinatorFor(loaded).resume();
    (await s.save(loaded))._unsafeUnwrap();
    const resumed = (await rowTexts(name))[index] as string;
    expect(resumed).toContain(ARGUMENTS);
    expect(resumed).not.toContain('"metadata"');
  });

  it("an answer decided under row locks keeps the call's numbers too", async () => {
    const { name, promptId, index } = await suspendedWithNumbers();
    const reply = { type: "answer", value: true } as const;
    const answered = await inTransaction(ctx().pool, (client) =>
      answerInTransaction(client, namesFor("jp"), {
        conversation: name,
        promptId,
        reply,
        now: new Date(),
      }),
    );
    answered._unsafeUnwrap();
    const written = (await rowTexts(name))[index] as string;
    expect(written).toContain(ARGUMENTS);
    expect(written).toContain('"reply":{"type":"answer","value":true}');
  });
});
