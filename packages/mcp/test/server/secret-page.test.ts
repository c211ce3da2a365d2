// The secret page's signal: it stays open while the person may still submit the page, in both
// eras (on 2026-07-28 no request of the call lasts that long), and tells the page once the call
// no longer waits for it.
import { ConversationStream } from "@jp/conversation";
import {
  type BuiltinTool,
  builtinExecutor,
  type PromptBackend,
  ToolCoordinator,
  TurnState,
} from "@jp/coordinator";
import { describe, expect, it } from "vitest";
import { createMcpToolServer, type SecretPage } from "../../src/index.js";
import { attachedCoordinator, servedInProcess } from "../support.js";

const SECRET = "sk-LIVE-0123456789";

const login: BuiltinTool = {
  execute({ answers }) {
    if (typeof answers.token !== "string") {
      return {
        type: "needs_input",
        question: { id: "token", text: "Your API token?", answer_type: { type: "secret" } },
      };
    }
    return { type: "success", content: `logged in with a token of ${answers.token.length}` };
  },
};

describe.each(["2025-11-25", "2026-07-28"] as const)("on %s", (era) => {
  it("a page that stops when its signal aborts is still open when the person submits it", async () => {
    let signal: AbortSignal | undefined;
    let submit: (secret: string) => void = () => {};
    // Like a real page: once told to stop, it takes no submission.
    const page: SecretPage = {
      async begin(request) {
        signal = request.signal;
        const answer = new Promise<string>((resolve, reject) => {
          submit = resolve;
          request.signal.addEventListener("abort", () => reject(new Error("page closed")));
        });
        return { url: "https://secrets.example.com/enter", answer };
      },
    };
    const openWhenAsked: (boolean | undefined)[] = [];
    // The person consents to the page, then submits the secret there.
    const person: PromptBackend = {
      isHumanReachable: () => true,
      ask: async (request) => {
        if (request.kind !== "question") return { type: "approve" } as never;
        openWhenAsked.push(signal?.aborted === false);
        submit(SECRET);
        return { type: "answer", value: "open" } as never;
      },
    };
    const factory = createMcpToolServer({
      name: "keys",
      version: "1",
      tools: { login: { description: "logs in", executor: builtinExecutor("login", login) } },
      secretPage: page,
    });
    const { connection, close } = await servedInProcess(era, factory, { openUrl: () => {} });
    try {
      const { coordinator } = attachedCoordinator(connection, { prompts: person });
      const { responses } = await coordinator.run([{ id: "c1", name: "login", arguments: {} }], {
        turn: new TurnState(),
      });
      expect(openWhenAsked).toEqual([true]);
      expect(responses[0]?.content).toBe(`logged in with a token of ${SECRET.length}`);
      // The call is over: the page is told.
      await expect.poll(() => signal?.aborted).toBe(true);
    } finally {
      await close();
    }
  });

  it("a page never submitted is told once the call fails for want of it", async () => {
    let signal: AbortSignal | undefined;
    const page: SecretPage = {
      async begin(request) {
        signal = request.signal;
        return { url: "https://secrets.example.com/enter", answer: new Promise<string>(() => {}) };
      },
    };
    const factory = createMcpToolServer({
      name: "keys",
      version: "1",
      tools: { login: { description: "logs in", executor: builtinExecutor("login", login) } },
      secretPage: page,
      answerTimeoutMs: 50,
    });
    const { connection, close } = await servedInProcess(era, factory, { openUrl: () => {} });
    try {
      const stream = ConversationStream.empty();
      stream.startTurn("Log in.");
      const coordinator = new ToolCoordinator({
        stream,
        tools: { "*": { run: "unattended" } },
        executors: connection,
        prompts: {
          isHumanReachable: () => true,
          ask: async () => ({ type: "answer", value: "open" }) as never,
        },
      });
      connection.attach(coordinator, { stream });
      const { responses } = await coordinator.run([{ id: "c1", name: "login", arguments: {} }], {
        turn: new TurnState(),
      });
      expect(responses[0]?.content).toContain("was not submitted on its page");
      expect(signal?.aborted).toBe(true);
    } finally {
      await close();
    }
  });
});
