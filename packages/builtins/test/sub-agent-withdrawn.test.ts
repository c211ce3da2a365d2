import { ConversationStream, type InquiryResponse } from "@jp/conversation";
import {
  type BuiltinTool,
  builtinExecutorSource,
  layerToolsConfigs,
  type QuestionReply,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import { MockPromptBackend, waitForAbort } from "@jp/coordinator/testing";
import { describe, expect, it } from "vitest";
import { askUser, builtinToolConfigs, subAgentPrompts } from "../src/index.js";

const cancelReasons = (stream: ConversationStream) =>
  stream.events.flatMap((e) =>
    e.type === "inquiry_response" && (e as InquiryResponse).outcome === "cancelled"
      ? [[String(e.id), String((e as Extract<InquiryResponse, { outcome: "cancelled" }>).reason)]]
      : [],
  );

describe("a sub-agent that its hosting tool stops while the person sees its question", () => {
  it("is recorded in the parent's conversation as interrupted, not as the person's cancel", async () => {
    const parentStream = ConversationStream.empty();
    parentStream.startTurn("Research.");
    const childStream = ConversationStream.empty();
    let parent!: ToolCoordinator;
    // The hosting tool gives its sub-agent a signal of its own and stops it (a plain abort(), as
    // a tool that gives up on a sub-agent does) once its question is in front of the person.
    const stopSubAgent = new AbortController();
    const research: BuiltinTool = {
      async execute({ signal }) {
        childStream.startTurn("Find the config file.");
        const child = new ToolCoordinator({
          stream: childStream,
          tools: builtinToolConfigs(),
          executors: builtinExecutorSource({ ask_user: askUser }),
          prompts: subAgentPrompts({
            agent: "researcher",
            parent: { coordinator: parent, toolCallId: "call_parent" },
          }),
        });
        await child.run(
          [{ id: "call_child", name: "ask_user", arguments: { question: "Which directory?" } }],
          { turn: new TurnState(), signal: AbortSignal.any([signal, stopSubAgent.signal]) },
        );
        return { type: "success", content: "the sub-agent was stopped" };
      },
    };
    parent = new ToolCoordinator({
      stream: parentStream,
      tools: layerToolsConfigs(builtinToolConfigs(), { research: { run: "unattended" } }),
      executors: builtinExecutorSource({ research }),
      prompts: new MockPromptBackend({ questions: [waitForAbort<QuestionReply>()] }),
    });
    parent.once("prompt-shown", () => void setImmediate(() => stopSubAgent.abort()));

    const { responses } = await parent.run(
      [{ id: "call_parent", name: "research", arguments: {} }],
      {
        turn: new TurnState(),
      },
    );

    expect(responses[0]?.content).toBe("the sub-agent was stopped");
    expect(cancelReasons(parentStream)).toEqual([["call_parent.answer.1", "interrupted"]]);
  });
});
