import { TurnState } from "@jp/coordinator";
import { migrate, PostgresConversationStore, PostgresInbox } from "@jp/store-postgres";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createTemplate,
  postgresMissing,
  startServer,
  type TestServer,
} from "../../../store-postgres/test/support/postgres.js";
import { postgresInboxSource, type StandaloneWebPrompts } from "../../src/index.js";
import { browserMissing, describeInBrowser, openPage } from "../support/browser.js";
import { answerFromAnotherProcess } from "../support/processes.js";
import { api, originOf } from "../support/server.js";
import { startWebPrompts } from "../support/start.js";
import { asking, coordinatorOn, resumeStored, suspendTurn } from "../support/stored.js";

const PLAN = { question: "Which plan?", answer_type: "select", options: ["basic", "pro"] };

/** Waits until the page shows no prompt and says so. */
async function emptied(page: Page): Promise<void> {
  await expect.poll(() => page.locator("article.prompt").count()).toBe(0);
  await expect.poll(() => page.locator("#idle").isVisible()).toBe(true);
}

if (postgresMissing !== undefined && browserMissing === undefined) {
  console.warn(`skipping the PostgreSQL inbox page tests: ${postgresMissing}`);
  describe.skip(`the inbox of PostgreSQL, in the browser [skipped: ${postgresMissing}]`, () => {
    it("lists and answers the inbox", () => {});
  });
} else {
  describeInBrowser("the inbox of PostgreSQL, in the browser", (browser) => {
    let template: string;
    let server: TestServer;
    let store: PostgresConversationStore;
    let inbox: PostgresInbox;
    let web: StandaloneWebPrompts;

    beforeAll(async () => {
      template = await createTemplate();
      // Every statement and its parameters are logged, so the secret scan reads them too.
      server = await startServer(template);
      const pool = server.pool({ max: 10 });
      (await migrate(pool))._unsafeUnwrap();
      store = new PostgresConversationStore(pool);
      inbox = new PostgresInbox(pool);
    }, 120_000);
    beforeEach(async () => {
      // Polling a minute apart: what the page shows within seconds came by LISTEN/NOTIFY.
      web = await startWebPrompts({ inbox: postgresInboxSource(inbox, { pollMs: 60_000 }) });
    });
    afterAll(async () => {
      await inbox?.close();
      await server?.stop();
      const { rmSync } = await import("node:fs");
      if (template !== undefined) rmSync(template, { recursive: true, force: true });
    });
    afterEach(async () => {
      await web.close();
      // Each test starts with an empty inbox: answer what a test left.
      const left = (await inbox.list({ answered: false }))._unsafeUnwrap().prompts;
      for (const prompt of left) {
        await inbox.answer({
          conversation: prompt.conversation,
          promptId: prompt.prompt_id,
          reply: { type: "cancelled" },
        });
      }
    });

    it("two tabs show a suspended turn's question; answered in one, it leaves the other, and the resumed turn records it", async () => {
      const { conversation } = await suspendTurn(store, "ask_user", PLAN, { title: "Billing" });
      const first = await openPage(browser(), web);
      const second = await openPage(browser(), web);
      for (const page of [first, second]) {
        await page.getByRole("heading", { name: "Which plan?" }).waitFor();
        expect(await page.getByRole("heading", { level: 2 }).textContent()).toBe(
          `Conversation ${conversation.name} suspended turn, saved`,
        );
      }
      await first.getByRole("radio", { name: "basic" }).check();
      await first.getByRole("button", { name: "Answer" }).click();
      await emptied(second);
      await emptied(first);
      const { resumed } = await resumeStored(store, conversation.name);
      expect(resumed.responses.map((r) => JSON.parse(r.content).answer)).toEqual(["basic"]);
      await first.close();
      await second.close();
    });

    it("an answer given by another process leaves the page; a turn suspended elsewhere appears", async () => {
      const { conversation } = await suspendTurn(store, "ask_user", PLAN);
      const page = await openPage(browser(), web);
      await page.getByRole("heading", { name: "Which plan?" }).waitFor();
      await answerFromAnotherProcess("postgres", server.url, conversation.name, "call_1.answer.1", {
        type: "answer",
        value: "pro",
      });
      await emptied(page);
      await suspendTurn(store, "ask_user", { question: "Ship it?", answer_type: "boolean" });
      await page.getByRole("heading", { name: "Ship it?" }).waitFor();
      await page.close();
    });

    it("answers a question a host is waiting for right now, and that host's run goes on", async () => {
      const { createInboxPrompts } = await import("@jp/store-postgres");
      const conversation = store.create({ title: "Live" });
      conversation.stream.startTurn("Pick a plan");
      const prompts = createInboxPrompts({ inbox, conversation: conversation.name });
      const run = coordinatorOn(conversation, { prompts }).run(
        [{ id: "call_1", name: "ask_user", arguments: PLAN }],
        { turn: new TurnState() },
      );
      const page = await openPage(browser(), web);
      await page.getByRole("heading", { name: "Which plan?" }).waitFor();
      expect(await page.locator(".stored-note").textContent()).toContain(
        "A program is waiting for this answer",
      );
      await page.getByRole("radio", { name: "pro" }).check();
      await page.getByRole("button", { name: "Answer" }).click();
      const { responses, pending } = await run;
      expect(pending).toEqual([]);
      expect(responses.map((r) => JSON.parse(r.content).answer)).toEqual(["pro"]);
      await emptied(page);
      await page.close();
    });

    it("a secret question is listed without a field, and its answer never reaches PostgreSQL", async () => {
      const SECRET = "otp-5b1e93c0";
      const tool = asking({
        id: "otp",
        text: "One-time password?",
        answer_type: { type: "secret" },
      });
      const { conversation } = await suspendTurn(
        store,
        "publish",
        {},
        {
          executors: { publish: tool },
        },
      );
      const page = await openPage(browser(), web);
      await page.getByRole("heading", { name: "One-time password?" }).waitFor();
      expect(await page.locator("input[type=password]").count()).toBe(0);
      expect(await page.locator(".secret-note").isVisible()).toBe(true);
      // Sent anyway, the way a page of one's own could: refused, and nothing is written.
      const response = await api(web, "inbox/reply", {
        method: "POST",
        headers: { Origin: originOf(web) },
        body: JSON.stringify({
          conversation: conversation.name,
          prompt_id: "call_1.otp.1",
          reply: { type: "answer", value: SECRET },
        }),
      });
      expect(response.status).toBe(422);
      expect(await server.holds(SECRET)).toEqual([]);
      await page.close();
    });
  });
}
