import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileConversationStore } from "@jp/conversation";
import { answerPendingPromptInStore, listPendingPrompts } from "@jp/coordinator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  fileInboxSource,
  type InboxSource,
  type StandaloneWebPrompts,
  type WebPromptsEvents,
} from "../src/index.js";
import type { BoardSnapshot } from "../src/internal/prompt-board.js";
import { api, liveConnection, originOf, state } from "./support/server.js";
import { startWebPrompts } from "./support/start.js";
import { asking, echo, resumeStored, suspendTurn } from "./support/stored.js";

type Answered = Parameters<WebPromptsEvents["inbox-answered"]>[0];

let root: string;
let store: FileConversationStore;
let web: StandaloneWebPrompts;
let answered: Answered[];

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "jp-web-inbox-"));
  store = new FileConversationStore(root);
  web = await startWebPrompts({ inbox: fileInboxSource(store, { pollMs: 50 }) });
  answered = [];
  web.on("inbox-answered", (event) => answered.push(event));
});
afterEach(async () => {
  await web.close();
  rmSync(root, { recursive: true, force: true });
});

const PLAN = {
  question: "Which plan?",
  answer_type: "select",
  options: ["basic", "pro"],
};

/** Posts an answer to a stored prompt the way the page does. */
function postInbox(
  body: unknown,
  init: { readonly token?: string | null; readonly origin?: string } = {},
) {
  return api(web, "inbox/reply", {
    method: "POST",
    body: JSON.stringify(body),
    headers: { Origin: init.origin ?? originOf(web) },
    ...(init.token === undefined ? {} : { token: init.token }),
  });
}

function inboxOf(snapshot: BoardSnapshot) {
  const inbox = snapshot.inbox;
  if (inbox === undefined) throw new Error("the snapshot has no inbox");
  return inbox;
}

/** Every byte under the store's root, as text. */
function everythingOnDisk(dir: string): string {
  let text = "";
  for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const path = join(dir, entry);
    if (statSync(path).isFile()) text += readFileSync(path, "latin1");
  }
  return text;
}

describe("the page's inbox over a FileConversationStore", () => {
  it("lists the pending prompts of every suspended turn, with titles, oldest first", async () => {
    const first = await suspendTurn(store, "ask_user", PLAN, { title: "Billing" });
    const second = await suspendTurn(store, "ask_user", {
      question: "Ship it?",
      answer_type: "boolean",
    });
    const inbox = inboxOf(await state(web));
    expect(inbox.status).toBe("ready");
    expect(inbox.conversations.map((c) => [c.id, c.title, c.prompts.map((p) => p.id)])).toEqual([
      [first.conversation.name, "Billing", ["call_1.answer.1"]],
      [second.conversation.name, "A suspended turn", ["call_1.answer.1"]],
    ]);
    const prompt = inbox.conversations[0]?.prompts[0];
    expect(prompt?.state).toBe("suspended");
    expect(prompt?.request.kind).toBe("question");
    expect(prompt?.since).toBe(Date.parse(first.result.pending[0]?.suspended_at ?? ""));
  });

  it("a conversation with nothing pending, or whose prompts are answered, is not listed", async () => {
    const { conversation } = await suspendTurn(store, "ask_user", PLAN);
    const done = store.create({ title: "Nothing to ask" });
    done.stream.startTurn("Hello");
    (await store.save(done))._unsafeUnwrap();
    (
      await answerPendingPromptInStore(store, conversation.name, "call_1.answer.1", {
        type: "answer",
        value: "pro",
      })
    )._unsafeUnwrap();
    expect(inboxOf(await state(web)).conversations).toEqual([]);
  });

  it("takes an answer checked as a live one, keeps it for the resume, and the turn records it", async () => {
    const { conversation } = await suspendTurn(store, "ask_user", PLAN);
    const target = { conversation: conversation.name, prompt_id: "call_1.answer.1" };
    const misfit = await postInbox({ ...target, reply: { type: "answer", value: "gold" } });
    expect(misfit.status).toBe(422);
    const refusal = (await misfit.json()) as { error: { message: string; kind: string } };
    expect(refusal.error.message).toMatch(/basic.*pro|one of/);
    // Nothing was taken: the prompt still waits.
    expect(inboxOf(await state(web)).conversations).toHaveLength(1);

    const accepted = await postInbox({ ...target, reply: { type: "answer", value: "pro" } });
    expect(accepted.status).toBe(200);
    expect(inboxOf(await state(web)).conversations).toEqual([]);
    expect(answered).toEqual([
      {
        conversation: conversation.name,
        promptId: "call_1.answer.1",
        kind: "question",
        outcome: "answer",
      },
    ]);
    const { resumed } = await resumeStored(store, conversation.name);
    expect(resumed.responses.map((r) => JSON.parse(r.content).answer)).toEqual(["pro"]);
  });

  it("a second answer to the same prompt is refused: it is no longer open", async () => {
    const { conversation } = await suspendTurn(store, "ask_user", PLAN);
    const body = {
      conversation: conversation.name,
      prompt_id: "call_1.answer.1",
      reply: { type: "answer", value: "basic" },
    };
    expect((await postInbox(body)).status).toBe(200);
    const again = await postInbox({ ...body, reply: { type: "answer", value: "pro" } });
    expect(again.status).toBe(404);
    const loaded = (await store.load(conversation.name))._unsafeUnwrap();
    expect(listPendingPrompts(loaded.stream).map((p) => p.answered)).toEqual([true]);
    const { resumed } = await resumeStored(store, conversation.name);
    expect(resumed.responses.map((r) => JSON.parse(r.content).answer)).toEqual(["basic"]);
  });

  it("a schema answer's problems come back by field", async () => {
    const { conversation } = await suspendTurn(store, "ask_user", {
      question: "Who?",
      answer_type: "schema",
      schema: {
        type: "object",
        properties: { name: { type: "string" }, age: { type: "integer", minimum: 0 } },
        required: ["name", "age"],
      },
    });
    const response = await postInbox({
      conversation: conversation.name,
      prompt_id: "call_1.answer.1",
      reply: { type: "answer", value: { name: "Ada", age: -1 } },
    });
    expect(response.status).toBe(422);
    const { error } = (await response.json()) as {
      error: { fields: { path: string; message: string }[] };
    };
    expect(error.fields).toEqual([{ path: "/age", message: "must be >= 0" }]);
  });

  it("a secret's answer is refused before the store sees it, and never reaches the disk", async () => {
    const { conversation } = await suspendTurn(
      store,
      "publish",
      {},
      {
        executors: {
          publish: asking({
            id: "otp",
            text: "One-time password?",
            answer_type: { type: "secret" },
          }),
        },
      },
    );
    // The source records what reaches it: the secret must not.
    const real = fileInboxSource(store);
    const reached: unknown[] = [];
    await web.close();
    web = await startWebPrompts({
      inbox: {
        list: () => real.list(),
        watch: (onChange) => real.watch(onChange),
        answer: (...args) => {
          reached.push(args);
          return real.answer(...args);
        },
      },
    });
    answered = [];
    web.on("inbox-answered", (event) => answered.push(event));
    const secret = "hunter2-7d41c9";
    const response = await postInbox({
      conversation: conversation.name,
      prompt_id: "call_1.otp.1",
      reply: { type: "answer", value: secret },
    });
    expect(response.status).toBe(422);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      error: {
        kind: "secret_not_stored",
        message:
          "A secret is never stored, so it cannot be answered here: it is asked when the turn resumes with someone at a live prompt.",
      },
    });
    expect(text).not.toContain(secret);
    expect(everythingOnDisk(root)).not.toContain(secret);
    expect(reached).toEqual([]);
    expect(answered).toEqual([]);
    // The question still waits, and other controls still work: Cancel is kept for the resume.
    expect(inboxOf(await state(web)).conversations).toHaveLength(1);
    const cancel = await postInbox({
      conversation: conversation.name,
      prompt_id: "call_1.otp.1",
      reply: { type: "cancelled" },
    });
    expect(cancel.status).toBe(200);
  });

  it("a permission prompt is answered with run, skip or edited arguments", async () => {
    const { conversation } = await suspendTurn(
      store,
      "deploy",
      { env: "staging" },
      {
        tools: { deploy: { run: "ask" } },
        executors: { deploy: echo() },
      },
    );
    const inbox = inboxOf(await state(web));
    const prompt = inbox.conversations[0]?.prompts[0];
    expect(prompt?.request.kind).toBe("permission");
    const bad = await postInbox({
      conversation: conversation.name,
      prompt_id: prompt?.id,
      reply: { type: "edit", arguments: [1] },
    });
    expect(bad.status).toBe(422);
    const ok = await postInbox({
      conversation: conversation.name,
      prompt_id: prompt?.id,
      reply: { type: "edit", arguments: { env: "production" } },
    });
    expect(ok.status).toBe(200);
  });

  it("an open page hears an answer given by anyone else within the poll interval", async () => {
    const { conversation } = await suspendTurn(store, "ask_user", PLAN);
    const page = await liveConnection(web);
    await waitFor(() => page.snapshots.some((s) => inboxPrompts(s) === 1), "the prompt listed");
    (
      await answerPendingPromptInStore(store, conversation.name, "call_1.answer.1", {
        type: "answer",
        value: "pro",
      })
    )._unsafeUnwrap();
    await waitFor(() => inboxPrompts(page.snapshots.at(-1)) === 0, "the prompt to leave the page");
    // And a turn suspended meanwhile appears.
    await suspendTurn(store, "ask_user", PLAN);
    await waitFor(() => inboxPrompts(page.snapshots.at(-1)) === 1, "the new prompt");
    await page.close();
  });

  it("names a conversation it cannot read and lists the others", async () => {
    await suspendTurn(store, "ask_user", PLAN);
    const broken = join(root, "17000000000-broken");
    mkdirSync(broken);
    writeFileSync(join(broken, "metadata.json"), '{"last_activated_at": "2026-01-01T00:00:00Z"}');
    writeFileSync(join(broken, "events.json"), "[{");
    const inbox = inboxOf(await state(web));
    expect(inbox.conversations).toHaveLength(1);
    expect(inbox.unreadable.map((u) => u.conversation)).toEqual(["17000000000-broken"]);
  });

  it("says when the store cannot be read at all", async () => {
    const file = join(root, "not-a-directory");
    writeFileSync(file, "");
    await web.close();
    web = await startWebPrompts({ inbox: fileInboxSource(new FileConversationStore(file)) });
    const inbox = inboxOf(await state(web));
    expect(inbox.status).toBe("unavailable");
    expect(inbox.message).toContain(file);
  });

  it("refuses malformed requests, a missing token and a foreign origin", async () => {
    const { conversation } = await suspendTurn(store, "ask_user", PLAN);
    const reply = { type: "answer", value: "pro" };
    expect((await postInbox({ prompt_id: "call_1.answer.1", reply })).status).toBe(400);
    expect((await postInbox({ conversation: conversation.name, reply })).status).toBe(400);
    expect((await postInbox([])).status).toBe(400);
    const body = { conversation: conversation.name, prompt_id: "call_1.answer.1", reply };
    expect((await postInbox({ ...body, conversation: "../etc" })).status).toBe(404);
    expect((await postInbox({ ...body, prompt_id: "call_9.x.1" })).status).toBe(404);
    expect((await postInbox(body, { token: null })).status).toBe(401);
    expect((await postInbox(body, { token: "x".repeat(43) })).status).toBe(401);
    expect((await postInbox(body, { origin: "https://evil.example" })).status).toBe(403);
    expect((await api(web, "inbox/reply")).status).toBe(405);
    // None of them answered anything.
    expect(inboxOf(await state(web)).conversations).toHaveLength(1);
  });

  it("without an inbox, the page has none and its endpoint is 404", async () => {
    await web.close();
    web = await startWebPrompts();
    expect((await state(web)).inbox).toBeUndefined();
    expect((await postInbox({ conversation: "x", prompt_id: "y", reply: {} })).status).toBe(404);
  });

  it("a source that fails to answer is reported as unavailable (503), not as the person's answer", async () => {
    const { conversation } = await suspendTurn(store, "ask_user", PLAN);
    const real = fileInboxSource(store);
    const failing: InboxSource = {
      list: () => real.list(),
      watch: (onChange) => real.watch(onChange),
      answer: () => Promise.reject(new Error("disk full")),
    };
    await web.close();
    web = await startWebPrompts({ inbox: failing });
    answered = [];
    web.on("inbox-answered", (event) => answered.push(event));
    const response = await postInbox({
      conversation: conversation.name,
      prompt_id: "call_1.answer.1",
      reply: { type: "answer", value: "pro" },
    });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      "disk full",
    );
    expect(answered).toEqual([]);
  });

  it.each([
    ["0", 0],
    ["-1", -1],
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["2147483648", 2 ** 31],
  ])("rejects a poll interval of %s with a RangeError", (shown, pollMs) => {
    expect(() => fileInboxSource(store, { pollMs })).toThrow(RangeError);
    expect(() => fileInboxSource(store, { pollMs })).toThrow(
      `fileInboxSource: \`pollMs\` must be a number of milliseconds greater than 0, at most 2147483647 (about 24.8 days); got ${shown}`,
    );
  });

  it('rejects a poll interval of "3" with a TypeError', () => {
    expect(() => fileInboxSource(store, { pollMs: "3" as never })).toThrow(TypeError);
  });

  it("takes a poll interval of 1.5 ms", () => {
    expect(fileInboxSource(store, { pollMs: 1.5 })).toBeDefined();
  });
});

function inboxPrompts(snapshot: unknown): number | undefined {
  const inbox = (snapshot as BoardSnapshot | undefined)?.inbox;
  return inbox?.conversations.reduce((sum, c) => sum + c.prompts.length, 0);
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
