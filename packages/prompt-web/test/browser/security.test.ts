import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { PromptRequest } from "@jp/coordinator";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { StandaloneWebPrompts, WebPromptsEvents } from "../../src/index.js";
import { describeInBrowser, errorFor, openPage, waitUntil } from "../support/browser.js";
import { conversation, inquiryTrail } from "../support/coordinator.js";
import { openPrompt, originOf, state, TEXT_QUESTION } from "../support/server.js";
import { startWebPrompts } from "../support/start.js";

let web: StandaloneWebPrompts;
let refusals: Parameters<WebPromptsEvents["request-refused"]>[0][];
beforeEach(async () => {
  web = await startWebPrompts({ waitForPageMs: 10_000 });
  refusals = [];
  web.on("request-refused", (event) => refusals.push(event));
});
afterEach(async () => {
  await web.close();
});

const HOSTILE = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`;

describeInBrowser("safety and reach in the browser", (browser) => {
  it("shows every model-controlled string as text, never as HTML", async () => {
    const page = await openPage(browser(), web);
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const signal = new AbortController();
    const backend = web.backend({ conversationId: "c1", title: `Title ${HOSTILE}` });
    const question: PromptRequest = {
      kind: "question",
      tool_name: `tool${HOSTILE}`,
      tool_call_id: "call_1",
      inquiry_id: "call_1.q.1",
      prompt_label: `Label ${HOSTILE}`,
      error: `Error ${HOSTILE}`,
      question: {
        id: "q",
        text: `Pick ${HOSTILE}`,
        context: `Context ${HOSTILE}`,
        answer_type: { type: "select", options: [`<b>bold</b>`, HOSTILE] },
      },
      controls: { remember: false, back: false, reply: false, end_turn: false },
    };
    const asked = backend.ask(question, { signal: signal.signal });
    await page.getByRole("heading", { name: `Pick ${HOSTILE}` }).waitFor();
    const seen = await page.locator("html").evaluate((root) => ({
      pwned: root.ownerDocument.defaultView.__pwned,
      images: root.querySelectorAll("main img, main script, main b").length,
      title: root.querySelector("section h2")?.textContent,
      label: root.querySelector(".meta .label")?.textContent,
      rejected: root.querySelector(".rejected")?.textContent,
      context: root.querySelector(".context")?.textContent,
      options: [...root.querySelectorAll(".options label")].map((l) => l.textContent),
    }));
    expect(seen).toEqual({
      pwned: undefined,
      images: 0,
      title: `Title ${HOSTILE}`,
      label: `Label ${HOSTILE}`,
      rejected: `Previous answer rejected: Error ${HOSTILE}`,
      context: `Context ${HOSTILE}`,
      options: ["<b>bold</b>", HOSTILE],
    });
    await page.getByRole("radio", { name: HOSTILE }).check();
    await page.getByRole("button", { name: "Answer" }).click();
    expect(await asked).toEqual({ type: "answer", value: HOSTILE });
    expect(dialogs).toEqual([]);
    await page.close();
  });

  it("the page's policy blocks inline script even if some were injected", async () => {
    const page = await openPage(browser(), web);
    const violations = await page.locator("html").evaluate(async (root) => {
      const document = root.ownerDocument;
      const seen: string[] = [];
      document.addEventListener("securitypolicyviolation", (e: { violatedDirective: string }) =>
        seen.push(e.violatedDirective),
      );
      const script = document.createElement("script");
      script.textContent = "window.__inline = 1";
      document.body.append(script);
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { seen, ran: document.defaultView.__inline };
    });
    expect(violations.ran).toBeUndefined();
    expect(violations.seen[0]).toMatch(/^script-src/);
    await page.close();
  });

  it("a schema's hostile pattern cannot freeze the page: only the server tests it, in bounded time", async () => {
    const page = await openPage(browser(), web);
    const { reply, abort } = await openPrompt(web, {
      ...TEXT_QUESTION,
      question: {
        id: "code",
        text: "Code?",
        // Exponential backtracking on a run of a's that ends in another character.
        answer_type: {
          type: "schema",
          schema: { type: "object", properties: { code: { type: "string", pattern: "^(a+)+$" } } },
        },
      },
    });
    const code = page.getByLabel("code (optional)");
    await code.fill(`${"a".repeat(40)}!`);
    const sent = Date.now();
    await page.getByRole("button", { name: "Answer" }).click();
    await expect
      .poll(() => errorFor(code))
      .toBe(
        'must match pattern "^(a+)+$" (testing this pattern ran out of time, so no answer can pass it: the schema needs a simpler pattern)',
      );
    // The tab answers at once (a page that ran the pattern would hang here for minutes).
    expect(await page.evaluate(() => 1 + 1)).toBe(2);
    expect(Date.now() - sent).toBeLessThan(10_000);
    // The person can still leave the question.
    await page.getByRole("button", { name: "Cancel" }).click();
    expect(await reply).toEqual({ type: "cancelled" });
    abort.abort();
    await page.close();
  });

  it("a forged token shows that the link is not valid, and nothing of the prompts", async () => {
    const { abort } = await openPrompt(web, TEXT_QUESTION);
    const page = await browser().newPage();
    await page.goto(`${originOf(web)}/#token=${"A".repeat(43)}`);
    const status = page.locator("#connection");
    await expect.poll(() => status.textContent()).toContain("This link is not valid");
    expect(await page.locator("article.prompt").count()).toBe(0);
    expect(refusals.map((r) => [r.path, r.status])).toEqual([["/api/events", 401]]);
    const bare = await browser().newPage();
    await bare.goto(originOf(web));
    await expect
      .poll(() => bare.locator("#connection").textContent())
      .toContain("No session token");
    abort.abort();
    await page.close();
    await bare.close();
  });

  it("takes the token out of the address bar and keeps the tab connected across a reload", async () => {
    const page = await openPage(browser(), web);
    expect(page.url()).toBe(`${originOf(web)}/`);
    await page.reload();
    await waitUntil(() => web.pagesConnected === 1, "the reloaded page");
    const { id, reply } = await openPrompt(web, TEXT_QUESTION);
    await page.getByLabel("Your answer").fill("after reload");
    await page.getByRole("button", { name: "Answer" }).click();
    expect(await reply).toEqual({ type: "answer", value: "after reload" });
    expect(id).toBeTruthy();
    await page.close();
  });

  it("refuses a cross-origin POST from another page, even one that knows the token", async () => {
    const { id, reply, abort } = await openPrompt(web, TEXT_QUESTION);
    const evil = await serve("<!doctype html><title>evil</title>");
    const page = await browser().newPage();
    await page.goto(evil.origin);
    const target = `${originOf(web)}/api/prompts/${id}/reply`;
    // fetch with the token: the browser's preflight is refused, so the POST is never sent.
    const fetched = await page.evaluate(
      async ({ target, token }) => {
        try {
          const response = await fetch(target, {
            method: "POST",
            headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
            body: JSON.stringify({ type: "answer", value: "evil" }),
          });
          return `status ${response.status}`;
        } catch (error) {
          return String(error);
        }
      },
      { target, token: web.token },
    );
    expect(fetched).toContain("TypeError");
    // A plain form post needs no preflight: the server refuses it by its Origin.
    await page.locator("html").evaluate((root, target) => {
      const document = root.ownerDocument;
      const form = document.createElement("form");
      form.method = "POST";
      form.action = target;
      form.enctype = "text/plain";
      const input = document.createElement("input");
      input.name = '{"type":"answer","value":"evil","x":"';
      input.value = '"}';
      form.append(input);
      document.body.append(form);
      form.submit();
    }, target);
    await waitUntil(() => refusals.some((r) => r.method === "POST"), "the form post");
    expect(refusals.filter((r) => r.method === "POST")).toEqual([
      {
        method: "POST",
        path: `/api/prompts/${id}/reply`,
        status: 403,
        reason: "the request comes from another origin",
      },
    ]);
    expect((await state(web)).conversations[0]?.prompts[0]?.id).toBe(id);
    abort.abort();
    expect(await reply).toEqual({ type: "cancelled" });
    await page.close();
    await evil.close();
  });

  it("every control is reachable with Tab and every input is labelled", async () => {
    const page = await openPage(browser(), web);
    const signal = new AbortController().signal;
    const backend = web.backend();
    void backend
      .ask(
        {
          ...TEXT_QUESTION,
          question: {
            id: "s",
            text: "Describe it",
            answer_type: {
              type: "schema",
              schema: {
                type: "object",
                properties: {
                  name: { type: "string" },
                  size: { enum: ["s", "m"] },
                  ok: { type: "boolean" },
                  tags: { type: "array", items: { enum: ["a", "b"] } },
                  extra: { type: "object" },
                },
              },
            },
          },
          controls: { remember: true, back: true, reply: true, end_turn: true },
        },
        { signal },
      )
      .catch(() => {});
    await page.getByRole("heading", { name: "Describe it" }).waitFor();
    const unlabelled = await page
      .locator("html")
      .evaluate((root) =>
        [...root.querySelectorAll("input, select, textarea")]
          .filter((el) => el.labels?.length === 0 && !el.getAttribute("aria-label"))
          .map((el) => el.outerHTML),
      );
    expect(unlabelled).toEqual([]);
    const controls = await page
      .locator("html")
      .evaluate((root) =>
        [
          ...root.querySelectorAll(
            "article button, article input, article select, article textarea",
          ),
        ]
          .filter((el) => el.offsetParent !== null)
          .map((el) => el.id || el.textContent),
      );
    const reached = new Set<string>();
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press("Tab");
      reached.add(
        await page.locator("html").evaluate((root) => {
          const focused = root.ownerDocument.activeElement;
          return focused?.id || focused?.textContent || "";
        }),
      );
    }
    expect(controls.filter((c) => c !== null && !reached.has(c))).toEqual([]);
    await page.close();
  });

  it("fits a phone's width without sideways scrolling", async () => {
    const page = await openPage(browser(), web, { width: 360 });
    const signal = new AbortController().signal;
    const long = "x".repeat(300);
    void web
      .backend({ title: long })
      .ask(
        {
          kind: "permission",
          tool_name: long,
          tool_call_id: "call_1",
          arguments: { path: long, nested: { list: [long, long] } },
          mode: "ask",
        },
        { signal },
      )
      .catch(() => {});
    await page.locator("article.prompt").waitFor();
    const width = await page.locator("html").evaluate((root) => root.scrollWidth);
    expect(width).toBeLessThanOrEqual(360);
    await page.close();
  });

  it("shows several conversations at once; a conversation's next prompt waits its turn", async () => {
    const page = await openPage(browser(), web);
    const release = conversation(web.backend({ conversationId: "release", title: "Release" }));
    const docs = conversation(web.backend({ conversationId: "docs", title: "Docs" }));
    const signal = new AbortController().signal;
    const runRelease = release.run("ask_user", { question: "Tag it?", answer_type: "boolean" });
    const runDocs = docs.run("ask_user", { question: "Which page?", answer_type: "text" });
    await page.getByRole("heading", { name: "Tag it?" }).waitFor();
    await page.getByRole("heading", { name: "Which page?" }).waitFor();
    // A second caller in the release conversation waits behind the first prompt.
    const queued = web.backend({ conversationId: "release" }).ask(TEXT_QUESTION, { signal });
    const sections = page.locator("section.conversation");
    expect(await sections.locator("h2").allTextContents()).toEqual(["Release", "Docs"]);
    const waiting = sections.first().locator(".waiting li");
    await expect.poll(() => waiting.textContent()).toMatch(/^Question: Name\? waiting \d+ s$/);
    expect(await page.title()).toBe("(3) Prompts");
    // Answering in one conversation leaves what is typed in the other alone.
    await page.getByLabel("Your answer").fill("getting-started");
    await page.getByRole("button", { name: "Yes" }).click();
    await runRelease;
    await page.getByRole("heading", { name: "Name?" }).waitFor();
    const docsAnswer = sections.nth(1).getByLabel("Your answer");
    expect(await docsAnswer.inputValue()).toBe("getting-started");
    await docsAnswer.press("Enter");
    expect((await runDocs).responses[0]?.content).toBe(
      '{"answer_type":"text","answer":"getting-started"}',
    );
    await sections.first().getByLabel("Your answer").fill("Ada");
    await sections.first().getByRole("button", { name: "Answer" }).click();
    expect(await queued).toEqual({ type: "answer", value: "Ada" });
    await page.close();
  });

  it("two tabs show the same prompt; answered in one, it leaves the other", async () => {
    const first = await openPage(browser(), web);
    const second = await openPage(browser(), web);
    expect(web.pagesConnected).toBe(2);
    const { reply } = await openPrompt(web, TEXT_QUESTION);
    await second.getByRole("heading", { name: "Name?" }).waitFor();
    await first.getByLabel("Your answer").fill("Ada");
    await first.getByRole("button", { name: "Answer" }).click();
    expect(await reply).toEqual({ type: "answer", value: "Ada" });
    await expect.poll(() => second.locator("article.prompt").count()).toBe(0);
    expect(await second.locator("#idle").isVisible()).toBe(true);
    await first.close();
    await second.close();
  });

  it("a closed tab is recorded as nobody there, not as the person's cancel", async () => {
    await web.close();
    web = await startWebPrompts({ disconnectGraceMs: 100 });
    const page = await openPage(browser(), web);
    const chat = conversation(web.backend());
    const run = chat.run("ask_user", { question: "Still there?", answer_type: "boolean" });
    await page.getByRole("heading", { name: "Still there?" }).waitFor();
    await page.close();
    const { responses } = await run;
    expect(inquiryTrail(chat.stream.events)).toEqual([
      ["call_1.answer.1", "cancelled", "backend_error"],
    ]);
    expect(responses[0]?.content).toContain("the prompt page was closed and did not come back");
  });
});

/** A page on another origin. */
async function serve(html: string): Promise<{ origin: string; close: () => Promise<void> }> {
  const server: Server = createServer((_, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
