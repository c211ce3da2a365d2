// A sub-agent's permission prompt, escalated through the tool call that hosts it, has a prompt
// id of its own (`<call>#permission/<agent>/<sub-agent's call>/<attempt>`). The inbox must know
// it by that id whether the prompt waits live or is suspended, or a resumed turn cannot find it.
import { ConversationStream } from "@jp/conversation";
import {
  type Executor,
  type PromptBackend,
  ToolCoordinator,
  type ToolsConfig,
  TurnState,
} from "@jp/coordinator";
import { expect, it } from "vitest";
import {
  createInboxPrompts,
  type InboxPrompt,
  PostgresConversationStore,
  PostgresInbox,
} from "../src/index.js";
import { describeWithPostgres } from "./support/server.js";
import { newConversation } from "./support/turns.js";

/** A tool whose pass runs a sub-agent, `helper`, that calls `wipe` (which asks permission). */
function hosting(parent: () => ToolCoordinator): Executor {
  return {
    async execute({ call, signal }) {
      const stream = ConversationStream.empty();
      stream.startTurn("Clean up.");
      const child = new ToolCoordinator({
        stream,
        tools: { wipe: { run: "ask" } } as ToolsConfig,
        executors: {
          executorFor: () => ({
            execute: async () => ({
              type: "completed",
              content: "wiped /tmp/old",
              is_error: false,
            }),
          }),
        },
        prompts: {
          isHumanReachable: () => parent().humanReachableFor(call.id),
          ask: (request, options) => parent().escalate(call.id, "helper", request, options),
        },
      });
      const ran = await child.run(
        [{ id: "sub_0", name: "wipe", arguments: { path: "/tmp/old" } }],
        {
          turn: new TurnState(),
          signal,
        },
      );
      return { type: "completed", content: ran.responses[0]?.content ?? "", is_error: false };
    },
  };
}

function parentOf(
  stream: ConversationStream,
  prompts: PromptBackend,
  run: "ask" | "unattended" = "unattended",
): ToolCoordinator {
  const coordinator: ToolCoordinator = new ToolCoordinator({
    stream,
    tools: { cleanup: { run } } as ToolsConfig,
    executors: { executorFor: () => hosting(() => coordinator) },
    prompts,
  });
  return coordinator;
}

/** The first unanswered live prompt of a conversation other than `except`, once there is one. */
async function livePrompt(
  inbox: PostgresInbox,
  conversation: string,
  except?: string,
): Promise<InboxPrompt> {
  for (let i = 0; i < 300; i++) {
    const page = (await inbox.list({ conversation, state: "live" }))._unsafeUnwrap();
    const found = page.prompts.find((p) => !p.answered && p.prompt_id !== except);
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("no live prompt appeared");
}

describeWithPostgres("a sub-agent's permission prompt in the inbox", (ctx) => {
  it("waits live under its own id: an answer sent again to the hosting call's permission does not approve it", async () => {
    const store = new PostgresConversationStore(ctx().pool);
    const inbox = new PostgresInbox(ctx().pool);
    const conversation = newConversation(store, "live-escalated");
    conversation.stream.startTurn("Tidy up.");
    const prompts = createInboxPrompts({ inbox, conversation: conversation.name });
    const running = parentOf(conversation.stream, prompts, "ask").run(
      [{ id: "call_1", name: "cleanup", arguments: {} }],
      { turn: new TurnState() },
    );
    const own = await livePrompt(inbox, conversation.name);
    expect([own.prompt_id, own.tool_name]).toEqual(["call_1#permission", "cleanup"]);
    const approve = { conversation: conversation.name, promptId: own.prompt_id };
    (await inbox.answer({ ...approve, reply: { type: "run" } }))._unsafeUnwrap();
    const sub = await livePrompt(inbox, conversation.name, own.prompt_id);
    expect([sub.prompt_id, sub.kind, sub.tool_name]).toEqual([
      "call_1#permission/helper/sub_0/1",
      "permission",
      "wipe",
    ]);
    // The hosting call's approval, sent again (a client retrying): it is not the sub-agent's.
    expect((await inbox.answer({ ...approve, reply: { type: "run" } })).isErr()).toBe(true);
    (
      await inbox.answer({
        conversation: conversation.name,
        promptId: sub.prompt_id,
        reply: { type: "skip" },
      })
    )._unsafeUnwrap();
    const result = await running;
    expect(result.responses.map((r) => r.content)).not.toContain("wiped /tmp/old");
    await inbox.close();
  });

  it("is listed, found again on a resume before it is answered, and answered by its own id", async () => {
    const store = new PostgresConversationStore(ctx().pool);
    const inbox = new PostgresInbox(ctx().pool);
    const conversation = newConversation(store, "escalated");
    conversation.stream.startTurn("Tidy up.");
    const prompts = createInboxPrompts({ inbox, conversation: conversation.name, waitMs: 100 });
    const first = await parentOf(conversation.stream, prompts).run(
      [{ id: "call_1", name: "cleanup", arguments: {} }],
      { turn: new TurnState() },
    );
    const promptId = first.pending[0]?.prompt_id as string;
    expect(promptId).toBe("call_1#permission/helper/sub_0/1");
    (await store.save(conversation))._unsafeUnwrap();
    // Resumed before anyone answered: it is the same prompt, still waiting in the inbox.
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    const again = await parentOf(loaded.stream, prompts).resume();
    expect(again.pending.map((p) => p.prompt_id)).toEqual([promptId]);
    expect(again.responses).toEqual([]);
    (await store.save(loaded))._unsafeUnwrap();
    const listed = (await inbox.list({ conversation: conversation.name }))._unsafeUnwrap();
    expect(listed.prompts.map((p) => [p.prompt_id, p.state, p.kind])).toEqual([
      [promptId, "suspended", "permission"],
    ]);
    (
      await inbox.answer({ conversation: conversation.name, promptId, reply: { type: "run" } })
    )._unsafeUnwrap();
    const answered = (await store.load(conversation.name))._unsafeUnwrap();
    const resumed = await parentOf(answered.stream, prompts).resume();
    expect(resumed.pending).toEqual([]);
    expect(resumed.responses.map((r) => r.content)).toEqual(["wiped /tmp/old"]);
    await inbox.close();
  });
});
