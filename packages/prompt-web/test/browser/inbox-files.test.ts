import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileConversationStore } from "@jp/conversation";
import type { Page } from "playwright-core";
import { afterEach, beforeEach, expect, it } from "vitest";
import { fileInboxSource, type StandaloneWebPrompts } from "../../src/index.js";
import { describeInBrowser, openPage } from "../support/browser.js";
import { answerFromAnotherProcess } from "../support/processes.js";
import { startWebPrompts } from "../support/start.js";
import { asking, resumeStored, suspendTurn } from "../support/stored.js";

let root: string;
let store: FileConversationStore;
let web: StandaloneWebPrompts;
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "jp-web-inbox-"));
  store = new FileConversationStore(root);
  web = await startWebPrompts({ inbox: fileInboxSource(store, { pollMs: 200 }) });
});
afterEach(async () => {
  await web.close();
  rmSync(root, { recursive: true, force: true });
});

const PLAN = { question: "Which plan?", answer_type: "select", options: ["basic", "pro"] };

/** Waits until the page shows no prompt and says so. */
async function emptied(page: Page): Promise<void> {
  await expect.poll(() => page.locator("article.prompt").count()).toBe(0);
  await expect.poll(() => page.locator("#idle").isVisible()).toBe(true);
}

describeInBrowser("the inbox of a file store, in the browser", (browser) => {
  it("two tabs show a suspended turn's question; answered in one, it leaves the other, and the resumed turn records it", async () => {
    const { conversation } = await suspendTurn(store, "ask_user", PLAN, { title: "Billing" });
    const first = await openPage(browser(), web);
    const second = await openPage(browser(), web);
    for (const page of [first, second]) {
      await page.getByRole("heading", { name: "Which plan?" }).waitFor();
      expect(await page.getByRole("heading", { level: 2 }).textContent()).toBe(
        "Billing suspended turn, saved",
      );
      expect(await page.locator(".stored-note").textContent()).toContain(
        "your answer is kept, and the turn goes on when it resumes",
      );
    }
    await first.getByRole("radio", { name: "pro" }).check();
    await first.getByRole("button", { name: "Answer" }).click();
    await emptied(second);
    await emptied(first);
    const { resumed } = await resumeStored(store, conversation.name);
    expect(resumed.responses.map((r) => JSON.parse(r.content).answer)).toEqual(["pro"]);
    await first.close();
    await second.close();
  });

  it("an answer given by another process leaves the open page", async () => {
    const { conversation } = await suspendTurn(store, "ask_user", PLAN);
    const page = await openPage(browser(), web);
    await page.getByRole("heading", { name: "Which plan?" }).waitFor();
    await answerFromAnotherProcess("file", root, conversation.name, "call_1.answer.1", {
      type: "answer",
      value: "basic",
    });
    await emptied(page);
    // A turn suspended meanwhile by another host appears without a reload.
    await suspendTurn(store, "ask_user", { question: "Ship it?", answer_type: "boolean" });
    await page.getByRole("heading", { name: "Ship it?" }).waitFor();
    await page.close();
  });

  it("the server's check shows beside the field; corrected, the answer is taken", async () => {
    const { conversation } = await suspendTurn(store, "ask_user", {
      question: "Who gets the report?",
      answer_type: "schema",
      schema: {
        type: "object",
        properties: { email: { type: "string", format: "email" }, copies: { type: "integer" } },
        required: ["email", "copies"],
      },
    });
    const page = await openPage(browser(), web);
    const email = page.getByLabel("email", { exact: true });
    await email.fill("not an address");
    await page.getByLabel("copies", { exact: true }).fill("2");
    await page.getByRole("button", { name: "Answer" }).click();
    const error = page.locator(`#${await email.getAttribute("aria-describedby")}`);
    await expect.poll(() => error.textContent()).toBe('must match format "email"');
    expect(await email.getAttribute("aria-invalid")).toBe("true");
    await email.fill("ops@example.com");
    await page.getByRole("button", { name: "Answer" }).click();
    await emptied(page);
    const { resumed } = await resumeStored(store, conversation.name);
    expect(JSON.parse(resumed.responses[0]?.content ?? "").answer).toEqual({
      email: "ops@example.com",
      copies: 2,
    });
    await page.close();
  });

  it("a stored secret question has no field: the page says it is asked when the turn resumes", async () => {
    const tool = asking({ id: "otp", text: "One-time password?", answer_type: { type: "secret" } });
    await suspendTurn(store, "publish", {}, { executors: { publish: tool } });
    const page = await openPage(browser(), web);
    await page.getByRole("heading", { name: "One-time password?" }).waitFor();
    expect(await page.locator("input[type=password]").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Answer" }).count()).toBe(0);
    expect(await page.locator(".secret-note").textContent()).toBe(
      "A secret is never stored, so it cannot be answered here: it is asked when the turn resumes with someone at a live prompt.",
    );
    // Cancel is still the person's to give.
    await page.getByRole("button", { name: "Cancel" }).click();
    await emptied(page);
    await page.close();
  });

  it("a permission prompt of a suspended turn: Skip with a reason", async () => {
    const deploy = {
      tools: { deploy: { run: "ask" as const } },
      executors: { deploy: asking({ id: "never", text: "?", answer_type: { type: "text" } }) },
    };
    const { conversation } = await suspendTurn(store, "deploy", { env: "production" }, deploy);
    const page = await openPage(browser(), web);
    await page.getByRole("heading", { name: "Run tool deploy?" }).waitFor();
    await page.getByRole("button", { name: "Skip with a reason…" }).click();
    await page.getByLabel("Reason for skipping (optional)").fill("Not on a Friday.");
    await page.getByRole("button", { name: "Skip", exact: true }).last().click();
    await emptied(page);
    const { resumed } = await resumeStored(store, conversation.name, deploy);
    expect(resumed.responses[0]?.content).toContain("Not on a Friday.");
    await page.close();
  });

  it("model text in a stored question shows as text", async () => {
    const hostile = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`;
    await suspendTurn(
      store,
      "ask_user",
      { question: hostile, answer_type: "text" },
      { title: hostile },
    );
    const page = await openPage(browser(), web);
    await page.getByRole("heading", { name: hostile, level: 3 }).waitFor();
    expect(await page.getByRole("heading", { level: 2 }).textContent()).toContain(hostile);
    expect(await page.locator("img, main script").count()).toBe(0);
    expect(await page.title()).not.toContain("pwned");
    await page.close();
  });
});
