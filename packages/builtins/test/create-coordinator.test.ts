import {
  ConversationStream,
  type SaveResult,
  type StoredConversation,
  type StoreError,
} from "@jp/conversation";
import {
  type BuiltinTool,
  builtinExecutorSource,
  ToolCoordinator,
  ToolsConfigError,
  TurnState,
} from "@jp/coordinator";
import { MockPromptBackend } from "@jp/coordinator/testing";
import { defineSchemaQuestion, needsInput, success } from "@jp/tool";
import { ok, type Result } from "neverthrow";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { askUser, createCoordinator } from "../src/index.js";

const question = {
  id: "call_ask",
  name: "ask_user",
  arguments: { question: "Which color?", answer_type: "select", options: ["red", "blue"] },
};

const lookup: BuiltinTool = {
  execute: ({ arguments: args }) => ({ type: "success", content: `found ${String(args.q)}` }),
};

function started(): ConversationStream {
  const stream = ConversationStream.empty();
  stream.startTurn("Pick a color.");
  return stream;
}

describe("createCoordinator", () => {
  it("runs ask_user as the registered built-in: no permission prompt, the assistant's label", async () => {
    const prompts = new MockPromptBackend({ questions: [{ type: "answer", value: "blue" }] });
    const jp = createCoordinator({ stream: started(), prompts });
    const { responses } = await jp.run([question]);
    expect(prompts.requests.map((r) => r.kind)).toEqual(["question"]);
    expect(prompts.questions[0]?.prompt_label).toBe("Assistant");
    expect(responses[0]).toMatchObject({ id: "call_ask", is_error: false });
    expect(JSON.parse(responses[0]?.content ?? "")).toMatchObject({ answer: "blue" });
    prompts.assertScriptUsed();
  });

  it("matches a hand-built coordinator, which gets ask_user's configuration from its executor", async () => {
    // askUser carries its registered configuration, so a coordinator built by hand without
    // builtinToolConfigs() runs it as createCoordinator does: no permission prompt.
    const prompts = new MockPromptBackend({ questions: [{ type: "answer", value: "red" }] });
    const bare = new ToolCoordinator({
      stream: started(),
      tools: {},
      executors: builtinExecutorSource({ ask_user: askUser }),
      prompts,
    });
    await bare.run([question], { turn: new TurnState() });
    expect(prompts.requests.map((r) => r.kind)).toEqual(["question"]);
    expect(prompts.questions[0]?.prompt_label).toBe("Assistant");
    expect(bare.tools).toEqual(createCoordinator({ stream: started() }).tools);
    prompts.assertScriptUsed();
  });

  it("layers your tools over the built-ins and runs them with your executors", async () => {
    const prompts = new MockPromptBackend();
    const jp = createCoordinator({
      stream: started(),
      prompts,
      tools: { lookup: { run: "unattended" }, ask_user: { description: "Ask me." } },
      executors: { lookup },
    });
    const { responses } = await jp.run([{ id: "c1", name: "lookup", arguments: { q: "x" } }]);
    expect(responses.map((r) => r.content)).toEqual(["found x"]);
    expect(jp.toolCoordinator.config("ask_user")).toMatchObject({
      description: "Ask me.",
      run: "unattended",
      style: { hidden: true },
    });
    expect(prompts.requests).toEqual([]);
  });

  it("accepts an ExecutorSource for your tools", async () => {
    const jp = createCoordinator({
      stream: started(),
      tools: { lookup: { run: "unattended" } },
      executors: builtinExecutorSource({ lookup }),
    });
    const { responses } = await jp.run([{ id: "c1", name: "lookup", arguments: { q: "y" } }]);
    expect(responses.map((r) => r.content)).toEqual(["found y"]);
  });

  it("keeps the turn's state for the turn, and starts afresh with the next turn", async () => {
    const remember = { type: "run", remember: true } as const;
    const prompts = new MockPromptBackend({ permissions: [remember, remember] });
    const jp = createCoordinator({ stream: started(), prompts, executors: { lookup } });
    const call = (id: string) => ({ id, name: "lookup", arguments: { q: id } });
    await jp.run([call("a")]);
    await jp.run([call("b")]); // remembered for this turn: no second prompt
    expect(prompts.requests).toHaveLength(1);
    jp.stream.startTurn("Again.");
    await jp.run([call("c")]);
    expect(prompts.requests).toHaveLength(2);
    prompts.assertScriptUsed();
  });

  it("uses the turn state it is given", async () => {
    const prompts = new MockPromptBackend({ permissions: [] });
    const turn = new TurnState();
    turn.remembered_permission_decisions.set("lookup.__permission__", true);
    const jp = createCoordinator({ stream: started(), prompts, executors: { lookup } });
    const { responses } = await jp.run([{ id: "a", name: "lookup", arguments: {} }], { turn });
    expect(prompts.requests).toEqual([]);
    expect(responses[0]?.is_error).toBe(false);
  });

  it("offers ask_user to every provider", () => {
    const jp = createCoordinator({ stream: started() });
    expect(jp.providerTools("anthropic").map((t) => t.name)).toEqual(["ask_user"]);
    expect(jp.providerTools("openai-chat").map((t) => t.function.name)).toEqual(["ask_user"]);
    expect(jp.providerTools("openai-responses").map((t) => t.name)).toEqual(["ask_user"]);
  });

  it("throws for a tool no provider accepts, naming it", () => {
    const jp = createCoordinator({ stream: started(), tools: { "read file": {} } });
    expect(() => jp.providerTools("anthropic")).toThrow(/"read file" is not accepted/);
  });

  it("throws for a configuration it cannot apply", () => {
    expect(() =>
      createCoordinator({ stream: started(), tools: { x: { run: "maybe" as never } } }),
    ).toThrow(ToolsConfigError);
  });

  it("saves the conversation to its store", async () => {
    const conversation: StoredConversation = {
      name: "1-x",
      metadata: { last_activated_at: "2026-01-01 00:00:00.0" },
      baseConfig: undefined,
      layout: "base_config",
      stream: started(),
    };
    const saved: StoredConversation[] = [];
    const store = {
      save: async (c: StoredConversation): Promise<Result<SaveResult, StoreError>> => {
        saved.push(c);
        return ok({ revision: "r1" });
      },
    };
    const jp = createCoordinator({ store, conversation });
    expect(jp.stream).toBe(conversation.stream);
    expect((await jp.save())._unsafeUnwrap()).toEqual({ revision: "r1" });
    expect(saved).toEqual([conversation]);
  });

  it("starts a new conversation from the store when none is given", async () => {
    const created: StoredConversation = {
      name: "2-new",
      metadata: { last_activated_at: "2026-01-01 00:00:00.0" },
      baseConfig: undefined,
      layout: "base_config",
      stream: ConversationStream.empty(),
    };
    const saved: StoredConversation[] = [];
    const store = {
      create: () => created,
      save: async (c: StoredConversation): Promise<Result<SaveResult, StoreError>> => {
        saved.push(c);
        return ok({ revision: "r" });
      },
    };
    const jp = createCoordinator({ store });
    expect(jp.conversation).toBe(created);
    expect(jp.stream).toBe(created.stream);
    await jp.save();
    expect(saved).toEqual([created]);
  });

  it("refuses a store that cannot create a conversation when none is given", () => {
    const store = { save: async () => ok({ revision: "r" }) };
    expect(() => createCoordinator({ store })).toThrow(/pass the `conversation` to record in/);
  });

  it("refuses to save without a store, saying what to pass", async () => {
    const jp = createCoordinator({ stream: started() });
    expect(jp.conversation).toBeUndefined();
    await expect(jp.save()).rejects.toThrow(/pass a `store` \(and the `conversation`\)/);
  });

  it("refuses options with no conversation to record in", () => {
    expect(() => createCoordinator({} as never)).toThrow(
      "createCoordinator needs a `stream`, or a `store` (and a `conversation`)",
    );
  });
});

describe("a tool's schema question written with zod", () => {
  const release = defineSchemaQuestion({
    id: "release",
    text: "Which version?",
    schema: z.object({ version: z.string().regex(/^\d+\.\d+\.\d+$/) }),
  })._unsafeUnwrap();
  const publish: BuiltinTool = {
    execute: ({ answers }) => {
      const answer = release.answerFrom(answers);
      if (answer === undefined) return needsInput(release.question);
      return success(`published ${answer.version}`);
    },
  };

  it("is recorded as plain JSON Schema, and a reply that does not fit is asked again", async () => {
    const prompts = new MockPromptBackend({
      questions: [
        { type: "answer", value: { version: "soon" } },
        { type: "answer", value: { version: "1.4.0" } },
      ],
    });
    const jp = createCoordinator({
      stream: started(),
      prompts,
      tools: { publish: { run: "unattended" } },
      executors: { publish },
    });
    const { responses } = await jp.run([{ id: "p", name: "publish", arguments: {} }]);
    expect(responses[0]?.content).toBe("published 1.4.0");
    const recorded = jp.stream.events.find((e) => e.type === "inquiry_request");
    expect(recorded).toMatchObject({
      question: {
        answer_type: {
          type: "schema",
          schema: { type: "object", properties: { version: { type: "string" } } },
        },
      },
    });
    expect(JSON.parse(JSON.stringify(recorded))).toEqual(recorded);
    prompts.assertScriptUsed();
  });
});
