// Our tools served in their own process over stdio, to a bare SDK client in both protocol eras:
// a question reaches the client as an elicitation (pushed on 2025, input-required on 2026-07-28)
// and its answers come back as the tool's answers.
import {
  type CallToolResult,
  Client,
  type ElicitRequest,
  type ElicitResult,
  isInputRequiredResult,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERAS, fixtureTransport } from "../support.js";

type Reply = (request: ElicitRequest["params"]) => ElicitResult;

/**
 * A bare SDK client whose person replies by script, recording what it was asked. On 2026-07-28
 * it drives the input-required rounds itself (the SDK's automatic rounds drop a response's
 * `_meta`), echoing `requestState` as the spec requires.
 */
async function bareClient(era: (typeof ERAS)[number], env: Record<string, string> = {}) {
  const asked: ElicitRequest["params"][] = [];
  let replies: Reply[] = [];
  const modern = era[1] !== undefined;
  const client = new Client(
    { name: "bare", version: "1" },
    {
      capabilities: { elicitation: { form: {}, url: {} } },
      ...(modern ? { versionNegotiation: era[1], inputRequired: { autoFulfill: false } } : {}),
    },
  );
  const reply = (params: ElicitRequest["params"]): ElicitResult => {
    asked.push(params);
    const next = replies.shift();
    if (next === undefined) throw new Error("no scripted reply");
    return next(params);
  };
  client.setRequestHandler("elicitation/create", async (request) => reply(request.params));
  await client.connect(fixtureTransport("tool-server.ts", env));
  // The session process starts after a 2026-07-28 connect resolves: wait for it here.
  await client.listTools();
  const rounds = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> => {
    let extra: Record<string, unknown> = {};
    for (let round = 0; round < 10; round++) {
      const result = await client.request(
        { method: "tools/call", params: { name, arguments: args, ...extra } },
        { allowInputRequired: true },
      );
      if (!isInputRequiredResult(result)) return result as CallToolResult;
      const responses: Record<string, ElicitResult> = {};
      for (const [key, request] of Object.entries(result.inputRequests ?? {})) {
        responses[key] = reply((request as ElicitRequest).params);
      }
      extra = { inputResponses: responses };
      if (result.requestState !== undefined) extra.requestState = result.requestState;
    }
    throw new Error("too many rounds");
  };
  const call = async (name: string, args: Record<string, unknown>, script: Reply[]) => {
    asked.length = 0;
    replies = [...script];
    const result = modern
      ? await rounds(name, args)
      : await client.callTool({ name, arguments: args }, { timeout: 30_000 });
    const first = result.content[0];
    return { text: first?.type === "text" ? first.text : "", isError: result.isError === true };
  };
  return { client, asked, call };
}

const accept =
  (content: Record<string, unknown>): Reply =>
  () => ({ action: "accept", content: content as never });

describe.each(ERAS)("our tools served to a %s client", (version, negotiation) => {
  const era = [version, negotiation] as (typeof ERAS)[number];
  let bare: Awaited<ReturnType<typeof bareClient>>;
  let withPage: Awaited<ReturnType<typeof bareClient>>;

  beforeAll(async () => {
    [bare, withPage] = await Promise.all([bareClient(era), bareClient(era, { SECRET_PAGE: "1" })]);
    expect(bare.client.getNegotiatedProtocolVersion()).toBe(version);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([bare?.client.close(), withPage?.client.close()]);
  });

  it("ask_user's question arrives as a form and its answer comes back", async () => {
    const out = await bare.call("ask_user", { question: "Deploy now?", answer_type: "boolean" }, [
      accept({ answer: true }),
    ]);
    expect(bare.asked).toEqual([
      {
        mode: "form",
        message: "Deploy now?",
        requestedSchema: {
          type: "object",
          properties: { answer: { title: "Answer", type: "boolean" } },
          required: ["answer"],
        },
      },
    ]);
    expect(out).toEqual({ text: '{"answer_type":"boolean","answer":true}', isError: false });
  });

  it("an ask_user form asks each question in turn and returns every answer", async () => {
    const questions = [
      {
        id: "env",
        text: "Which environment?",
        answer_type: "select",
        options: ["staging", "prod"],
      },
      { id: "why", text: "Why?", answer_type: "text" },
    ];
    const out = await bare.call("ask_user", { questions }, [
      accept({ answer: "prod" }),
      accept({ answer: "hotfix" }),
    ]);
    expect(bare.asked.map((p) => p.message)).toEqual(["Which environment?", "Why?"]);
    expect(JSON.parse(out.text)).toEqual({ env: "prod", why: "hotfix" });
  });

  it("an answer that does not fit is asked again with the problem", async () => {
    const out = await bare.call("count", {}, [
      accept({ answer: "[1]" }),
      accept({ answer: "[1, 2]" }),
    ]);
    expect(bare.asked[0]).toMatchObject({
      requestedSchema: {
        properties: { answer: { type: "string", title: "Answer (JSON)" } },
      },
    });
    expect(bare.asked[1]?.message).toContain(
      "Your previous answer was not accepted: does not match",
    );
    expect(out.text).toBe("n=[1,2]");
  });

  it("an answer of the wrong type for its form is asked again, not the end of the call", async () => {
    const out = await bare.call("ask_user", { question: "Deploy now?", answer_type: "boolean" }, [
      accept({ answer: "yes" }),
      accept({ answer: true }),
    ]);
    expect(bare.asked[1]?.message).toContain(
      "Your previous answer was not accepted: expected true or false",
    );
    expect(out).toEqual({ text: '{"answer_type":"boolean","answer":true}', isError: false });
  });

  it("an answer that keeps failing ends the call with the reason", async () => {
    const out = await bare.call(
      "count",
      {},
      [1, 2, 3].map(() => accept({ answer: "[1]" })),
    );
    expect(bare.asked).toHaveLength(3);
    expect(out).toEqual({
      text: expect.stringContaining('The answer to question "n" kept failing validation'),
      isError: true,
    });
  });

  it("a decline is the user's decline for the model", async () => {
    const out = await bare.call("ask_user", { question: "Deploy now?", answer_type: "boolean" }, [
      () => ({ action: "decline" }),
    ]);
    expect(out).toEqual({ text: 'The user declined to answer "Deploy now?".', isError: false });
  });

  it("a cancel the client made without its user never reads as the user's", async () => {
    const out = await bare.call("ask_user", { question: "Deploy now?", answer_type: "boolean" }, [
      () => ({
        action: "cancel",
        _meta: { "jp.inquiry/decision": { by: "host", reason: "timeout" } },
      }),
    ]);
    expect(out).toEqual({
      text: 'The client cancelled the question "Deploy now?" without the user deciding (timeout); it was not answered.',
      isError: true,
    });
  });

  it("a secret is never sent as a form: refused with a reason the model can act on", async () => {
    const out = await bare.call("login", {}, []);
    expect(bare.asked).toEqual([]);
    expect(out.isError).toBe(true);
    expect(out.text).toContain(
      'Question "token" asks for a secret. MCP does not allow secrets in a form',
    );
  });

  it("with a secret page, a secret goes by URL and only the page sees it", async () => {
    const out = await withPage.call("login", {}, [() => ({ action: "accept" })]);
    expect(withPage.asked).toEqual([
      expect.objectContaining({ mode: "url", url: "https://secrets.example.com/enter/token" }),
    ]);
    expect(JSON.stringify(withPage.asked)).not.toContain("s3cr3t");
    expect(out).toEqual({ text: "logged in with a token of 12 characters", isError: false });
  });
});
