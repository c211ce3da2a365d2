// A real MCP server in its own process, over stdio, in both protocol eras: its elicitations are
import type { JsonValue } from "@jp/conversation";
// routed and recorded by the coordinator like any other question.
import type { QuestionReply } from "@jp/coordinator";
import { MockPromptBackend, waitForAbort } from "@jp/coordinator/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { McpConnection } from "../../src/index.js";
import { connect, ERAS, elicitLog, inquiries, responseOf, run, unpaired } from "../support.js";

const answer = (value: JsonValue) => ({ type: "answer", value }) as const;
const person = (reason?: string) => ({
  "jp.inquiry/decision": reason === undefined ? { by: "person" } : { by: "person", reason },
});
const host = (reason?: string) => ({
  "jp.inquiry/decision": reason === undefined ? { by: "host" } : { by: "host", reason },
});

describe.each(ERAS)("an MCP server on %s", (version, negotiation) => {
  const era = [version, negotiation] as (typeof ERAS)[number];
  const log = elicitLog();
  const opened: string[] = [];
  let server: McpConnection;

  beforeAll(async () => {
    server = await connect(era, {
      env: { ELICIT_LOG: log.path },
      openUrl: (url) => {
        opened.push(url);
      },
    });
  }, 30_000);
  afterAll(async () => {
    await server?.close();
    log.remove();
  });
  beforeEach(() => {
    log.clear();
    opened.length = 0;
  });

  it("negotiates the revision and advertises exactly the modes it supports", () => {
    expect(server.protocolVersion).toBe(version);
    expect(server.era).toBe(version === "2026-07-28" ? "modern" : "legacy");
    expect(server.elicitationModes).toEqual(["form", "url"]);
    expect(server.tools.map((t) => t.name)).toContain("contact");
  });

  it("asks the spec's structured form as a form with progress, and accepts with the content", async () => {
    const human = new MockPromptBackend({
      questions: [
        answer("accept"),
        answer("Monalisa Octocat"),
        answer("octocat@github.com"),
        answer(30),
      ],
    });
    const { stream } = await run(server, [{ id: "c1", name: "contact" }], { prompts: human });
    human.assertScriptUsed();
    expect(human.questions.map((q) => [q.question.id, q.progress])).toEqual([
      ["respond", { index: 1, total: 4 }],
      ["name", { index: 2, total: 4 }],
      ["email", { index: 3, total: 4 }],
      ["age", { index: 4, total: 4 }],
    ]);
    expect(human.questions[0]?.question.context).toContain('MCP server "fixture"');
    expect(inquiries(stream)).toEqual([
      ["c1.respond.1", "accept"],
      ["c1.name.1", "Monalisa Octocat"],
      ["c1.email.1", "octocat@github.com"],
      ["c1.age.1", 30],
    ]);
    const request = stream.events.find((e) => e.type === "inquiry_request");
    expect(request).toMatchObject({ source: { source: "tool", name: "contact" } });
    const told = JSON.parse(responseOf(stream, "c1").content);
    expect(told).toMatchObject({
      action: "accept",
      content: { name: "Monalisa Octocat", email: "octocat@github.com", age: 30 },
    });
    expect(unpaired(stream)).toEqual([]);
  });

  it("the person's decline reaches the server as the person's decline", async () => {
    const human = new MockPromptBackend({ questions: [answer("decline")] });
    const { stream } = await run(server, [{ id: "c2", name: "contact" }], { prompts: human });
    expect(inquiries(stream)).toEqual([["c2.respond.1", "decline"]]);
    expect(JSON.parse(responseOf(stream, "c2").content)).toMatchObject({ action: "decline" });
    expect(log.read()).toEqual([expect.objectContaining({ tool: "contact", action: "decline" })]);
    expect(unpaired(stream)).toEqual([]);
  });

  it("nobody there: the detached policy refuses, the record says so, nothing is accepted", async () => {
    const { stream, result } = await run(server, [{ id: "c3", name: "contact" }]);
    expect(inquiries(stream)).toEqual([["c3.respond.1", "cancelled:no_prompt_backend"]]);
    expect(result.refusals.map((r) => r.reason)).toEqual(["no_prompt_backend"]);
    expect(responseOf(stream, "c3").is_error).toBe(true);
    if (version === "2026-07-28") {
      // The round is sent once more with the host's decline (2025: see the github tool below).
      await expect
        .poll(() => log.read())
        .toEqual([{ tool: "contact", action: "decline", _meta: host("no_prompt_backend") }]);
    }
    expect(log.read().filter((entry) => entry.action === "accept")).toEqual([]);
    expect(unpaired(stream)).toEqual([]);
  });

  if (version === "2026-07-28") {
    it("a round nobody answers in time reaches the server as the host's cancel", async () => {
      const human = new MockPromptBackend({ questions: [waitForAbort<QuestionReply>()] });
      const { stream } = await run(server, [{ id: "c4", name: "contact" }], {
        prompts: human,
        promptTimeoutMs: 50,
      });
      expect(inquiries(stream)).toEqual([["c4.respond.1", "cancelled:timeout"]]);
      await expect
        .poll(() => log.read())
        .toEqual([{ tool: "contact", action: "cancel", _meta: host("timeout") }]);
    });
  }

  it("a URL is opened only after consent, and only then accepted", async () => {
    const human = new MockPromptBackend({ questions: [answer("open")] });
    const { stream } = await run(server, [{ id: "u1", name: "api_key" }], { prompts: human });
    expect(human.questions[0]?.question.context).toContain("open a page on mcp.example.com");
    expect(opened).toEqual(["https://mcp.example.com/ui/set_api_key"]);
    expect(JSON.parse(responseOf(stream, "u1").content)).toMatchObject({ action: "accept" });
  });

  it("a URL the person declines is never opened", async () => {
    const human = new MockPromptBackend({ questions: [answer("decline")] });
    const { stream } = await run(server, [{ id: "u2", name: "api_key" }], { prompts: human });
    expect(opened).toEqual([]);
    expect(JSON.parse(responseOf(stream, "u2").content)).toMatchObject({ action: "decline" });
  });

  it("calls without questions run side by side", async () => {
    const { stream } = await run(server, [
      { id: "e1", name: "echo", arguments: { n: 1 } },
      { id: "e2", name: "echo", arguments: { n: 2 } },
    ]);
    expect(JSON.parse(responseOf(stream, "e1").content)).toEqual({ n: 1 });
    expect(JSON.parse(responseOf(stream, "e2").content)).toEqual({ n: 2 });
  });

  if (version === "2025-11-25") {
    it("a pushed elicitation the person cancels reaches the server as the person's cancel", async () => {
      const human = new MockPromptBackend({ questions: [answer("accept"), { type: "cancelled" }] });
      const { stream } = await run(server, [{ id: "g1", name: "github" }], { prompts: human });
      expect(inquiries(stream)).toEqual([
        ["g1.respond.1", "accept"],
        ["g1.name.1", "cancelled:user"],
      ]);
      await expect
        .poll(() => log.read())
        .toEqual([{ tool: "github", action: "cancel", _meta: person("user") }]);
      expect(unpaired(stream)).toEqual([]);
    });

    it("with nobody there the server hears a decline made by the host, never an accept", async () => {
      const { stream } = await run(server, [{ id: "g2", name: "github" }]);
      expect(inquiries(stream)).toEqual([["g2.respond.1", "cancelled:no_prompt_backend"]]);
      await expect
        .poll(() => log.read())
        .toEqual([{ tool: "github", action: "decline", _meta: host("no_prompt_backend") }]);
    });

    it("a prompt nobody answers in time is a timeout, a cancel by the host", async () => {
      const human = new MockPromptBackend({ questions: [waitForAbort<QuestionReply>()] });
      const { stream } = await run(server, [{ id: "g3", name: "github" }], {
        prompts: human,
        promptTimeoutMs: 50,
      });
      expect(inquiries(stream)).toEqual([["g3.respond.1", "cancelled:timeout"]]);
      await expect
        .poll(() => log.read())
        .toEqual([{ tool: "github", action: "cancel", _meta: host("timeout") }]);
    });

    it("two elicitations in one call get their own question ids", async () => {
      const human = new MockPromptBackend({
        questions: [answer("accept"), answer("octocat"), answer("accept"), answer("hubot")],
      });
      const { stream } = await run(server, [{ id: "g4", name: "two_forms" }], { prompts: human });
      expect(inquiries(stream)).toEqual([
        ["g4.respond.1", "accept"],
        ["g4.name.1", "octocat"],
        ["g4.respond_2.1", "accept"],
        ["g4.name_2.1", "hubot"],
      ]);
      expect(log.read()).toEqual([
        { tool: "github", action: "accept", content: { name: "octocat" }, _meta: person() },
        { tool: "github", action: "accept", content: { name: "hubot" }, _meta: person() },
      ]);
    });
  }
});
