import { HumanUnreachableError } from "@jp/coordinator";
import { afterEach, describe, expect, it } from "vitest";
import type { StandaloneWebPrompts } from "../src/index.js";
import { conversation, inquiryTrail } from "./support/coordinator.js";
import { liveConnection, openPrompt, postReply, TEXT_QUESTION } from "./support/server.js";
import { startWebPrompts } from "./support/start.js";

let web: StandaloneWebPrompts;
afterEach(async () => {
  await web.close();
});

const ASK_NAME = { question: "Name?", answer_type: "text" };

describe("whether a person is reachable", () => {
  it("is not reachable with no page open (by default nobody is waited for)", async () => {
    web = await startWebPrompts();
    expect(await web.backend().isHumanReachable()).toBe(false);
    expect(web.pagesConnected).toBe(0);
  });

  it("is reachable while a page is connected, and not after it closed and the grace passed", async () => {
    web = await startWebPrompts({ disconnectGraceMs: 400 });
    const page = await liveConnection(web);
    expect(page.response.status).toBe(200);
    expect(page.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(web.pagesConnected).toBe(1);
    expect(await web.backend().isHumanReachable()).toBe(true);
    await page.close();
    await until(() => web.pagesConnected === 0);
    // Within the grace a reload may still bring the page back: wait for it.
    const started = Date.now();
    expect(await web.backend().isHumanReachable()).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it("waits up to waitForPageMs for a page to open", async () => {
    web = await startWebPrompts({ waitForPageMs: 5000 });
    const reachable = web.backend().isHumanReachable();
    const page = await liveConnection(web);
    expect(await reachable).toBe(true);
    await page.close();
  });

  it("waitForPage resolves true on a page, false on timeout or abort", async () => {
    web = await startWebPrompts();
    expect(await web.waitForPage({ timeoutMs: 20 })).toBe(false);
    const abort = new AbortController();
    const aborted = web.waitForPage({ signal: abort.signal });
    abort.abort();
    expect(await aborted).toBe(false);
    const waiting = web.waitForPage();
    const page = await liveConnection(web);
    expect(await waiting).toBe(true);
    await page.close();
  });
});

describe("a prompt nobody can answer", () => {
  it("rejects with HumanUnreachableError when no page is open", async () => {
    web = await startWebPrompts();
    const { reply } = await openPrompt(web, TEXT_QUESTION);
    await expect(reply).rejects.toThrow(HumanUnreachableError);
    await expect(reply).rejects.toThrow("no prompt page is open");
  });

  it("survives a reload: a page that comes back within the grace still gets the prompt", async () => {
    web = await startWebPrompts({ disconnectGraceMs: 2000 });
    const first = await liveConnection(web);
    const { id, reply } = await openPrompt(web, TEXT_QUESTION);
    await first.close();
    const second = await liveConnection(web);
    await until(() => second.snapshots.length > 0);
    expect(JSON.stringify(second.snapshots[0])).toContain(id);
    expect((await postReply(web, id, { type: "answer", value: "Ada" })).status).toBe(200);
    expect(await reply).toEqual({ type: "answer", value: "Ada" });
    await second.close();
  });

  it("rejects as unreachable when the page closed and did not come back", async () => {
    web = await startWebPrompts({ disconnectGraceMs: 30 });
    const page = await liveConnection(web);
    const { reply } = await openPrompt(web, TEXT_QUESTION);
    await page.close();
    await expect(reply).rejects.toThrow(
      new HumanUnreachableError("the prompt page was closed and did not come back"),
    );
  });

  it("a prompt asked well after the page closed says no page is open", async () => {
    web = await startWebPrompts({ disconnectGraceMs: 10 });
    const page = await liveConnection(web);
    await page.close();
    await until(() => web.pagesConnected === 0);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const { reply } = await openPrompt(web, TEXT_QUESTION);
    await expect(reply).rejects.toThrow(new HumanUnreachableError("no prompt page is open"));
  });

  it("the coordinator records a closed page as a backend failure, never as the person's cancel", async () => {
    web = await startWebPrompts({ disconnectGraceMs: 30 });
    const page = await liveConnection(web);
    const chat = conversation(web.backend());
    const run = chat.run("ask_user", ASK_NAME);
    await until(() => page.snapshots.length > 1);
    await page.close();
    const { responses } = await run;
    expect(inquiryTrail(chat.stream.events)).toEqual([
      ["call_1.answer.1", "cancelled", "backend_error"],
    ]);
    expect(responses[0]?.is_error).toBe(true);
    expect(responses[0]?.content).toContain("the prompt page was closed and did not come back");
  });

  it("with no page at all, the coordinator applies the detached policy and asks nobody", async () => {
    web = await startWebPrompts();
    const opened: unknown[] = [];
    web.on("prompt-opened", (event) => opened.push(event));
    const chat = conversation(web.backend());
    const { responses } = await chat.run("ask_user", ASK_NAME);
    expect(opened).toEqual([]);
    expect(responses[0]?.is_error).toBe(true);
    expect(inquiryTrail(chat.stream.events)).toEqual([
      ["call_1.answer.1", "cancelled", "no_prompt_backend"],
    ]);
  });

  it("closing the server fails open prompts as unreachable", async () => {
    web = await startWebPrompts({ waitForPageMs: Number.POSITIVE_INFINITY });
    const { reply } = await openPrompt(web, TEXT_QUESTION);
    await web.close();
    await expect(reply).rejects.toThrow(new HumanUnreachableError("the prompt page was shut down"));
    await expect(
      web.backend().ask(TEXT_QUESTION, { signal: new AbortController().signal }),
    ).rejects.toThrow(HumanUnreachableError);
  });
});

describe("prompts on the board", () => {
  it("an aborted prompt resolves cancelled and leaves every page", async () => {
    web = await startWebPrompts();
    const page = await liveConnection(web);
    const { reply, abort } = await openPrompt(web, TEXT_QUESTION);
    const shown = (snapshot: unknown) =>
      (snapshot as { conversations: unknown[] }).conversations.length > 0;
    await until(() => shown(page.snapshots.at(-1)));
    abort.abort();
    expect(await reply).toEqual({ type: "cancelled" });
    await until(() => !shown(page.snapshots.at(-1)));
    expect(page.snapshots.at(-1)).toMatchObject({ conversations: [] });
    await page.close();
  });

  it("a signal that aborted before asking resolves cancelled without showing anything", async () => {
    web = await startWebPrompts();
    const opened: unknown[] = [];
    web.on("prompt-opened", (event) => opened.push(event));
    const abort = new AbortController();
    abort.abort();
    expect(await web.backend().ask(TEXT_QUESTION, { signal: abort.signal })).toEqual({
      type: "cancelled",
    });
    expect(opened).toEqual([]);
  });

  it("shows each conversation's first prompt as active, the rest waiting, with titles", async () => {
    web = await startWebPrompts();
    const page = await liveConnection(web);
    const abort = new AbortController();
    const { signal } = abort;
    const a = web.backend({ conversationId: "a", title: "Release" });
    const b = web.backend({ conversationId: "b" });
    void a.ask(TEXT_QUESTION, { signal });
    void a.ask({ ...TEXT_QUESTION, tool_call_id: "call_2" }, { signal });
    void b.ask(TEXT_QUESTION, { signal });
    // The three prompts, opened together, reach the page in one snapshot after the first.
    await until(() => page.snapshots.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(page.snapshots).toHaveLength(2);
    const last = page.snapshots.at(-1) as {
      now: number;
      conversations: {
        id: string;
        title?: string;
        prompts: { active: boolean; opened_at: number }[];
      }[];
    };
    expect(
      last.conversations.map((c) => ({
        id: c.id,
        title: c.title,
        active: c.prompts.map((p) => p.active),
      })),
    ).toEqual([
      { id: "a", title: "Release", active: [true, false] },
      { id: "b", title: undefined, active: [true] },
    ]);
    expect(last.now).toBeGreaterThanOrEqual(last.conversations[0]?.prompts[0]?.opened_at ?? 0);
    abort.abort();
    await page.close();
  });
});

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
