// Durable questions with real processes: a turn stops at an MCP server's question, is saved, and
// the process exits (its server with it); the question is answered from this process; a fresh
// process resumes the turn on a new connection to a new server process, and the server gets the
// answer. Each step runs test/fixtures/durable-host.ts over stdio.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  type ConversationStream,
  FileConversationStore,
  type JsonValue,
  type ToolCallResponse,
} from "@jp/conversation";
import { answerPendingPromptInStore, listPendingPrompts } from "@jp/coordinator";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { MCP_CALL_METADATA_KEY } from "../../src/index.js";
import { elicitLog, inquiries, unpaired } from "../support.js";

const HOST = fileURLToPath(new URL("../fixtures/durable-host.ts", import.meta.url));
const run = promisify(execFile);
const log = elicitLog();
const dir = mkdtempSync(join(tmpdir(), "jp-mcp-durable-"));
const store = new FileConversationStore(dir);
afterAll(() => {
  log.remove();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => log.clear());

interface StepResult {
  readonly name: string;
  readonly pending: string[];
  readonly responses: ToolCallResponse[];
}

/** One step in a process of its own (see durable-host.ts). */
async function step(config: {
  era: "2025-11-25" | "2026-07-28";
  name?: string;
  tool?: string;
  live?: Record<string, JsonValue>;
}): Promise<StepResult> {
  const { stdout } = await run(
    process.execPath,
    ["--conditions=@jp/source", "--import", "tsx", HOST, JSON.stringify({ dir, ...config })],
    { env: { ...process.env, ELICIT_LOG: log.path } },
  );
  return JSON.parse(stdout) as StepResult;
}

/** Answers a pending prompt from this process, as any process could. */
async function answer(name: string, promptId: string, value: JsonValue): Promise<void> {
  const answered = await answerPendingPromptInStore(store, name, promptId, {
    type: "answer",
    value,
  });
  expect(answered.isOk(), answered.isErr() ? answered.error.message : "").toBe(true);
}

async function saved(name: string): Promise<ConversationStream> {
  return (await store.load(name))._unsafeUnwrap().stream;
}

/** What the call's request holds under this package's key, if anything. */
function recordOf(stream: ConversationStream): unknown {
  const request = stream.events.find((e) => e.type === "tool_call_request") as {
    metadata?: Record<string, unknown>;
  };
  return request.metadata?.[MCP_CALL_METADATA_KEY];
}

const person = { "jp.inquiry/decision": { by: "person" } };

describe("an input-required call (2026-07-28) left pending across restarts", () => {
  it("goes on from the recorded round: the retry carries the answers and the echoed requestState", async () => {
    const era = "2026-07-28";
    const first = await step({ era });
    expect(first.pending).toEqual(["c1.respond.1"]);
    expect(recordOf(await saved(first.name))).toEqual({
      v: 1,
      server: "fixture",
      tool: "two_rounds",
      prompted: [],
      // What the opening question asked: its answer answers only the same form; a field's id
      // is never an opening question's.
      gates: { respond: 'form ["name"]', name: "field" },
      // The arguments the call ran with: a round closed while suspended is sent with these.
      arguments: {},
      round: {
        legs: 1,
        ids: [],
        input_requests: { contact: expect.objectContaining({ method: "elicitation/create" }) },
        request_state: "r1",
      },
    });
    await answer(first.name, "c1.respond.1", "accept");

    // A second process: the opening question is answered, the field is still to ask.
    const second = await step({ era, name: first.name });
    expect(second.pending).toEqual(["c1.name.1"]);
    expect(recordOf(await saved(first.name))).toMatchObject({
      prompted: ["respond"],
      round: { legs: 1, request_state: "r1" },
    });
    await answer(first.name, "c1.name.1", "Ada");

    // A third process sends the retry, then answers the second round at a live prompt.
    const third = await step({ era, name: first.name, live: { respond_2: "accept" } });
    expect(third.pending).toEqual([]);
    expect(log.read()).toEqual([
      { tool: "two_rounds", leg: "initial", responses: {} },
      {
        tool: "two_rounds",
        leg: "r1",
        responses: { contact: { action: "accept", content: { name: "Ada" }, _meta: person } },
      },
      {
        tool: "two_rounds",
        leg: "r2:Ada",
        responses: { confirm: { action: "accept", content: {}, _meta: person } },
      },
    ]);
    expect(JSON.parse(third.responses[0]?.content ?? "")).toEqual({
      state: "r2:Ada",
      confirm: { action: "accept", content: {}, _meta: person },
    });

    const stream = await saved(first.name);
    expect(inquiries(stream)).toEqual([
      ["c1.respond.1", "accept"],
      ["c1.name.1", "Ada"],
      ["c1.respond_2.1", "accept"],
    ]);
    expect(recordOf(stream)).toBeUndefined();
    expect(unpaired(stream)).toEqual([]);
    expect(listPendingPrompts(stream)).toEqual([]);
  }, 180_000);

  it("a server that refuses the recorded requestState gets the call again, answered from the record", async () => {
    const era = "2026-07-28";
    const first = await step({ era, tool: "pid_state" });
    expect(first.pending).toEqual(["c1.respond.1"]);
    await answer(first.name, "c1.respond.1", "accept");
    const second = await step({ era, name: first.name });
    expect(second.pending).toEqual([]);
    // The new server process refused the old state (its verify hook): the call began again.
    expect(log.read()).toEqual([
      { tool: "pid_state", leg: "initial" },
      { tool: "pid_state", leg: "initial" },
      { tool: "pid_state", leg: "retry" },
    ]);
    expect(JSON.parse(second.responses[0]?.content ?? "")).toEqual({
      action: "accept",
      content: {},
      _meta: person,
    });
    expect(inquiries(await saved(first.name))).toEqual([["c1.respond.1", "accept"]]);
  }, 180_000);
});

describe("a pushed elicitation (2025-11-25) left pending across restarts", () => {
  it("the server hears the host's cancel when the turn suspends; the resumed call asks again and gets the recorded answers", async () => {
    const era = "2025-11-25";
    // The opening question is answered at a prompt, the field is left for later.
    const first = await step({ era, tool: "github", live: { respond: "accept" } });
    expect(first.pending).toEqual(["c1.name.1"]);
    expect(recordOf(await saved(first.name))).toEqual({
      v: 1,
      server: "fixture",
      tool: "github",
      prompted: ["respond"],
      gates: { respond: 'form ["name"]', name: "field" },
    });
    await expect
      .poll(() => log.read())
      .toEqual([
        {
          tool: "github",
          action: "cancel",
          _meta: { "jp.inquiry/decision": { by: "host", reason: "suspended" } },
        },
      ]);
    log.clear();
    await answer(first.name, "c1.name.1", "octocat");

    const second = await step({ era, name: first.name });
    expect(second.pending).toEqual([]);
    // The tool ran again; its elicitation was answered from the record, as the person's.
    expect(log.read()).toEqual([
      { tool: "github", action: "accept", content: { name: "octocat" }, _meta: person },
    ]);
    const stream = await saved(first.name);
    expect(inquiries(stream)).toEqual([
      ["c1.respond.1", "accept"],
      ["c1.name.1", "octocat"],
    ]);
    expect(recordOf(stream)).toBeUndefined();
    expect(unpaired(stream)).toEqual([]);
  }, 180_000);
});
