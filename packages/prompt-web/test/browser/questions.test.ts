import { TurnState } from "@jp/coordinator";
import { MockExecutor } from "@jp/coordinator/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { StandaloneWebPrompts } from "../../src/index.js";
import { describeInBrowser, errorFor, isFocused, openPage } from "../support/browser.js";
import { conversation, inquiryTrail } from "../support/coordinator.js";
import { startWebPrompts } from "../support/start.js";

let web: StandaloneWebPrompts;
let opened: number;
beforeEach(async () => {
  web = await startWebPrompts();
  opened = 0;
  web.on("prompt-opened", () => {
    opened += 1;
  });
});
afterEach(async () => {
  await web.close();
});

describeInBrowser("each answer type, answered in the browser", (browser) => {
  it("boolean: Yes; the default is marked and focused", async () => {
    const page = await openPage(browser(), web);
    const chat = conversation(web.backend());
    const run = chat.run("ask_user", {
      question: "Ship it?",
      answer_type: "boolean",
      default: true,
    });
    const yes = page.getByRole("button", { name: "Yes (default)" });
    await expect.poll(() => isFocused(yes)).toBe(true);
    await page.getByRole("heading", { name: "Ship it?" }).waitFor();
    await yes.click();
    const { responses } = await run;
    expect(responses[0]?.content).toBe('{"answer_type":"boolean","answer":true}');
    expect(inquiryTrail(chat.stream.events)).toEqual([["call_1.answer.1", "answered", "true"]]);
    await page.close();
  });

  it("boolean: remember for this turn answers the same question again without asking", async () => {
    const page = await openPage(browser(), web);
    const tool = new MockExecutor((input) =>
      input.answers.overwrite === undefined
        ? {
            type: "needs_input",
            question: {
              id: "overwrite",
              text: "Overwrite files?",
              answer_type: { type: "boolean" },
            },
          }
        : { type: "success", content: `overwrite: ${String(input.answers.overwrite)}` },
    );
    const chat = conversation(web.backend(), { executors: { copy: tool } });
    const turn = new TurnState();
    const run = chat.run("copy", {}, turn);
    await page.getByLabel("Remember for this turn").check();
    await page.getByRole("button", { name: "No", exact: true }).click();
    expect((await run).responses[0]?.content).toBe("overwrite: false");
    const again = await chat.run("copy", {}, turn);
    expect(again.responses[0]?.content).toBe("overwrite: false");
    expect(opened).toBe(1);
    await page.close();
  });

  it("select: the default is checked; another option is chosen with the keyboard", async () => {
    const page = await openPage(browser(), web);
    const chat = conversation(web.backend());
    const run = chat.run("ask_user", {
      question: "Which environment?",
      answer_type: "select",
      options: ["staging", "production"],
      default: "staging",
    });
    const staging = page.getByRole("radio", { name: "staging" });
    await expect.poll(() => staging.isChecked()).toBe(true);
    await expect.poll(() => isFocused(staging)).toBe(true);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    const { responses } = await run;
    expect(responses[0]?.content).toBe('{"answer_type":"select","answer":"production"}');
    await page.close();
  });

  it("multi_select: the checked options, in the question's order", async () => {
    const page = await openPage(browser(), web);
    const chat = conversation(web.backend());
    const run = chat.run("ask_user", {
      question: "Which checks?",
      answer_type: "multi_select",
      options: ["lint", "types", "tests"],
    });
    await page.getByRole("checkbox", { name: "tests" }).check();
    await page.getByRole("checkbox", { name: "lint" }).check();
    await page.getByRole("button", { name: "Answer" }).click();
    const { responses } = await run;
    expect(responses[0]?.content).toBe('{"answer_type":"multi_select","answer":["lint","tests"]}');
    await page.close();
  });

  it("text: the default is pre-filled and Enter sends the edited answer", async () => {
    const page = await openPage(browser(), web);
    const chat = conversation(web.backend());
    const run = chat.run("ask_user", {
      question: "Release name?",
      context: "Shown on the\nrelease page.",
      answer_type: "text",
      default: "Widgets",
    });
    const input = page.getByLabel("Your answer");
    await expect.poll(() => input.inputValue()).toBe("Widgets");
    expect(await page.locator(".context").textContent()).toBe("Shown on the\nrelease page.");
    await input.fill("Widgets 2");
    await input.press("Enter");
    const { responses } = await run;
    expect(responses[0]?.content).toBe('{"answer_type":"text","answer":"Widgets 2"}');
    await page.close();
  });

  it("schema: a generated form, checked in the page and again on the server", async () => {
    const page = await openPage(browser(), web);
    const chat = conversation(web.backend());
    const requests: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") requests.push(request.url());
    });
    const run = chat.run("ask_user", {
      question: "Who gets the report?",
      answer_type: "schema",
      schema: {
        type: "object",
        properties: {
          email: { type: "string", format: "email", description: "Where to send it" },
          copies: { type: "integer", minimum: 1 },
          format: { enum: ["pdf", "html"] },
          urgent: { type: "boolean" },
          tags: { type: "array", items: { enum: ["ops", "dev"] } },
        },
        required: ["email", "copies"],
      },
    });
    const email = page.getByLabel("email", { exact: true });
    const copies = page.getByLabel("copies", { exact: true });
    await email.waitFor();
    // The page's own check: a required field left empty, a number out of range; nothing is sent.
    await copies.fill("0");
    await page.getByRole("button", { name: "Answer" }).click();
    await expect.poll(() => errorFor(email)).toBe("This field is required.");
    expect(await errorFor(copies)).toBe("Enter 1 or more.");
    expect(await email.getAttribute("aria-invalid")).toBe("true");
    expect(requests).toEqual([]);
    // The server's check (the format is not checked in the page), shown beside its field.
    await email.fill("not an address");
    await copies.fill("2");
    await page.getByLabel("format (optional)").selectOption("html");
    await page.getByRole("checkbox", { name: "dev" }).check();
    await page.getByRole("button", { name: "Answer" }).click();
    await expect.poll(() => errorFor(email)).toBe('must match format "email"');
    expect(await errorFor(copies)).toBe("");
    expect(requests).toHaveLength(1);
    // Corrected, it goes through.
    await email.fill("ops@example.com");
    await page.getByRole("button", { name: "Answer" }).click();
    const { responses } = await run;
    expect(JSON.parse(responses[0]?.content ?? "")).toEqual({
      answer_type: "schema",
      answer: { email: "ops@example.com", copies: 2, format: "html", urgent: false, tags: ["dev"] },
    });
    expect(inquiryTrail(chat.stream.events)).toHaveLength(1);
    await page.close();
  });

  it("schema: nested objects, patterns, whole numbers and a JSON field for the rest", async () => {
    const page = await openPage(browser(), web);
    const abort = new AbortController();
    const reply = web.backend().ask(
      {
        kind: "question",
        tool_name: "deploy",
        tool_call_id: "call_1",
        inquiry_id: "call_1.plan.1",
        question: {
          id: "plan",
          text: "Deployment plan",
          answer_type: {
            type: "schema",
            schema: {
              type: "object",
              properties: {
                version: { type: "string", pattern: "^\\d+\\.\\d+$" },
                limits: {
                  type: "object",
                  title: "Limits",
                  properties: { cpu: { type: "integer" }, note: { type: "string" } },
                  required: ["cpu"],
                },
                labels: { type: "object", additionalProperties: { type: "string" } },
              },
              required: ["version", "limits"],
            },
          },
        },
        controls: { remember: false, back: false, reply: false, end_turn: false },
        initial: { version: "1.0", labels: { team: "web" } },
      },
      { signal: abort.signal },
    );
    const version = page.getByLabel("version", { exact: true });
    const cpu = page.getByLabel("cpu", { exact: true });
    const labels = page.getByLabel("labels (optional) (JSON)");
    await version.waitFor();
    expect(await version.inputValue()).toBe("1.0");
    expect(JSON.parse(await labels.inputValue())).toEqual({ team: "web" });
    expect(await page.getByRole("group", { name: "Limits" }).count()).toBe(1);
    await version.fill("v1");
    await cpu.fill("1.5");
    await labels.fill("{team: web}");
    await page.getByRole("button", { name: "Answer" }).click();
    // The page's own checks; the pattern is left to the server (it may come from a model).
    await expect.poll(() => errorFor(cpu)).toBe("Enter a whole number.");
    expect(await errorFor(labels)).toMatch(/^Not valid JSON: /);
    expect(await errorFor(version)).toBe("");
    await cpu.fill("2");
    await labels.fill('{"team": "api"}');
    await page.getByRole("button", { name: "Answer" }).click();
    await expect.poll(() => errorFor(version)).toBe('must match pattern "^\\d+\\.\\d+$"');
    await version.fill("2.1");
    await page.getByRole("button", { name: "Answer" }).click();
    expect(await reply).toEqual({
      type: "answer",
      value: { version: "2.1", limits: { cpu: 2 }, labels: { team: "api" } },
    });
    await page.close();
  });

  it("schema: a property named __proto__ keeps what the person typed", async () => {
    const page = await openPage(browser(), web);
    const abort = new AbortController();
    const reply = web.backend().ask(
      {
        kind: "question",
        tool_name: "ship",
        tool_call_id: "call_1",
        inquiry_id: "call_1.address.1",
        question: {
          id: "address",
          text: "Shipping address",
          answer_type: {
            type: "schema",
            // Parsed, as a schema from a model is: a literal would set the prototype instead.
            schema: JSON.parse(
              '{"type":"object","properties":{"__proto__":{"type":"string","title":"Proto field"},"city":{"type":"string"}}}',
            ),
          },
        },
        controls: { remember: false, back: false, reply: false, end_turn: false },
        initial: { city: "Lyon" },
      },
      { signal: abort.signal },
    );
    const proto = page.getByLabel("Proto field (optional)");
    await proto.waitFor();
    // An earlier answer without the property leaves its field empty.
    expect(await proto.inputValue()).toBe("");
    expect(await page.getByLabel("city (optional)").inputValue()).toBe("Lyon");
    await proto.fill("typed by the person");
    await page.getByRole("button", { name: "Answer" }).click();
    // Compared as JSON: an own `__proto__` property is what the person's answer holds.
    expect(JSON.stringify(await reply)).toBe(
      '{"type":"answer","value":{"__proto__":"typed by the person","city":"Lyon"}}',
    );
    await page.close();
  });

  it("secret: a password field; the value is nowhere but in the tool's hands", async () => {
    const SECRET = "hunter2-Zq9";
    const page = await openPage(browser(), web);
    const urls: string[] = [];
    page.on("request", (request) => urls.push(request.url()));
    const records: unknown[] = [];
    for (const name of web.eventNames()) {
      web.on(name, (event: unknown) => records.push({ name, event }));
    }
    const tool = new MockExecutor((input) =>
      input.answers.otp === undefined
        ? {
            type: "needs_input",
            question: { id: "otp", text: "One-time password", answer_type: { type: "secret" } },
          }
        : { type: "success", content: `published (${String(input.answers.otp).length} chars)` },
    );
    const chat = conversation(web.backend(), { executors: { publish: tool } });
    const run = chat.run("publish", {});
    const field = page.getByLabel("Your answer (hidden)");
    await field.waitFor();
    expect(await field.getAttribute("type")).toBe("password");
    expect(await field.inputValue()).toBe("");
    await field.fill(SECRET);
    await field.press("Enter");
    const { responses } = await run;
    expect(tool.executions.at(-1)?.answers).toEqual({ otp: SECRET });
    expect(responses[0]?.content).toBe("published (11 chars)");
    await expect.poll(() => page.locator("article.prompt").count()).toBe(0);
    // Not in the record, the server's events or state, any URL, the DOM or the page's storage.
    expect(inquiryTrail(chat.stream.events)).toEqual([["call_1.otp.1", "redacted", ""]]);
    expect(JSON.stringify(chat.stream.toJSON())).not.toContain(SECRET);
    expect(JSON.stringify(records)).not.toContain(SECRET);
    const state = await fetch(`${new URL(web.url).origin}/api/state`, {
      headers: { Authorization: `Bearer ${web.token}` },
    });
    expect(await state.text()).not.toContain(SECRET);
    expect(urls.join(" ")).not.toContain(SECRET);
    expect(page.url()).not.toContain(SECRET);
    const inPage = await page.locator("html").evaluate((root) => {
      const window = root.ownerDocument.defaultView;
      return {
        html: root.outerHTML,
        values: [...root.querySelectorAll("input, textarea")].map((el) => el.value),
        storage:
          JSON.stringify({ ...window.localStorage }) + JSON.stringify({ ...window.sessionStorage }),
      };
    });
    expect(inPage.html).not.toContain(SECRET);
    expect(inPage.values.join("")).not.toContain(SECRET);
    expect(inPage.storage).not.toContain(SECRET);
    await page.close();
  });
});
