// Takes a screenshot of each prompt kind into docs/, for the README. Needs Debian's Chromium:
//   npm run screenshots -w packages/prompt-web
import { mkdirSync } from "node:fs";
import type { PromptRequest } from "@jp/coordinator";
import { ok } from "neverthrow";
import { chromium } from "playwright-core";
import { createWebPrompts, type InboxSource } from "../src/index.js";

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const out = new URL("../docs/", import.meta.url);
mkdirSync(out, { recursive: true });

const controls = { remember: false, back: true, reply: true, end_turn: true };
const question = (
  id: string,
  text: string,
  answer_type: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) =>
  ({
    kind: "question",
    tool_name: "ask_user",
    tool_call_id: "call_1",
    inquiry_id: `call_1.${id}.1`,
    prompt_label: "Assistant",
    question: { id, text, answer_type },
    controls,
    ...extra,
  }) as PromptRequest;

const shots: { name: string; request: PromptRequest; width?: number; after?: string }[] = [
  {
    name: "boolean",
    request: question(
      "apply",
      "Apply the proposed migration?",
      { type: "boolean" },
      {
        progress: { index: 1, total: 3 },
        controls: { ...controls, back: false, remember: true },
        initial: true,
      },
    ),
  },
  {
    name: "select",
    request: question(
      "env",
      "Which environment?",
      { type: "select", options: ["staging", "production"] },
      { progress: { index: 2, total: 3 }, initial: "staging" },
    ),
  },
  {
    name: "multi-select",
    request: question(
      "checks",
      "Which checks should run first?",
      { type: "multi_select", options: ["lint", "typecheck", "unit tests", "e2e"] },
      { progress: { index: 3, total: 3 }, initial: ["lint", "unit tests"] },
    ),
  },
  {
    name: "text",
    request: question(
      "note",
      "A note for the changelog?",
      { type: "text" },
      {
        question: {
          id: "note",
          text: "A note for the changelog?",
          context: "Shown under the release heading.",
          answer_type: { type: "text" },
        },
        controls: { remember: false, back: false, reply: false, end_turn: false },
      },
    ),
  },
  {
    name: "secret",
    request: {
      kind: "question",
      tool_name: "publish_package",
      tool_call_id: "call_2",
      inquiry_id: "call_2.otp.1",
      question: {
        id: "otp",
        text: "One-time password for the registry",
        answer_type: { type: "secret" },
      },
      controls: { remember: false, back: false, reply: false, end_turn: false },
    },
  },
  {
    name: "schema",
    request: question(
      "release",
      "Describe the release",
      {
        type: "schema",
        schema: {
          type: "object",
          properties: {
            version: {
              type: "string",
              pattern: "^\\d+\\.\\d+\\.\\d+$",
              description: "Semantic version, e.g. 1.4.0",
            },
            channel: { enum: ["stable", "beta"] },
            replicas: { type: "integer", minimum: 1, maximum: 9 },
            notify: { type: "boolean", title: "Notify subscribers" },
          },
          required: ["version", "channel"],
        },
      },
      { controls: { remember: false, back: false, reply: true, end_turn: true } },
    ),
    after: "schema-error",
  },
  {
    name: "permission",
    request: {
      kind: "permission",
      tool_name: "publish_package",
      tool_call_id: "call_3",
      tool_source: "local",
      arguments: { package: "widgets", version: "1.4.0", tag: "latest" },
      mode: "ask",
    },
  },
  {
    name: "deliver",
    request: {
      kind: "deliver",
      tool_name: "fs_read_file",
      tool_call_id: "call_4",
      content: "# widgets\n\nversion = 1.4.0\nchannel = stable\n",
      is_error: false,
      mode: "ask",
    },
  },
  {
    name: "phone",
    width: 375,
    request: question(
      "env",
      "Which environment?",
      { type: "select", options: ["staging", "production"] },
      { progress: { index: 2, total: 3 } },
    ),
  },
];

// Each picture opens a new page: prompts wait for it to connect.
const started = await createWebPrompts({ waitForPageMs: 30_000 });
if (started.isErr()) throw new Error(started.error.message);
const web = started.value;
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
try {
  for (const shot of shots) {
    const page = await browser.newPage({
      viewport: { width: shot.width ?? 720, height: 400 },
      deviceScaleFactor: 1,
    });
    await page.goto(web.url);
    const abort = new AbortController();
    const asked = web
      .backend({ title: "Release widgets" })
      .ask(shot.request, { signal: abort.signal });
    const card = page.locator("article.prompt");
    await card.waitFor();
    // No focus ring in the pictures.
    await page.locator("html").evaluate((root) => root.ownerDocument.activeElement?.blur());
    await page.screenshot({ path: new URL(`${shot.name}.png`, out).pathname, fullPage: true });
    if (shot.after !== undefined) {
      await page.getByLabel("version").fill("1.4");
      await page.getByRole("button", { name: "Answer" }).click();
      await page.locator(".field-error:not([hidden])").first().waitFor();
      await page.screenshot({ path: new URL(`${shot.after}.png`, out).pathname, fullPage: true });
    }
    abort.abort();
    await asked;
    await page.close();
    console.log(`docs/${shot.name}.png`);
  }
  await conversationsShot();
  await inboxShot();
} finally {
  await browser.close();
  await web.close();
}

/** Two conversations, one with a prompt waiting its turn. */
async function conversationsShot(): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 720, height: 400 } });
  await page.goto(web.url);
  const abort = new AbortController();
  const { signal } = abort;
  const release = web.backend({ conversationId: "release", title: "Release widgets" });
  const docs = web.backend({ conversationId: "docs", title: "Update the docs" });
  const asked = [
    release.ask(shots[1]?.request as PromptRequest, { signal }),
    release.ask(shots[6]?.request as PromptRequest, { signal }),
    docs.ask(shots[3]?.request as PromptRequest, { signal }),
  ];
  await page.locator("article.prompt").nth(1).waitFor();
  await page.locator(".waiting li").waitFor();
  await page.locator("html").evaluate((root) => root.ownerDocument.activeElement?.blur());
  await page.screenshot({ path: new URL("conversations.png", out).pathname, fullPage: true });
  abort.abort();
  await Promise.all(asked);
  await page.close();
  console.log("docs/conversations.png");
}

/** Prompts waiting in a store: a suspended turn's question with a deadline, and a secret. */
async function inboxShot(): Promise<void> {
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
  const source: InboxSource = {
    list: async () =>
      ok({
        conversations: [
          {
            name: "17727484633-release-widgets",
            title: "Release widgets",
            prompts: [
              {
                prompt_id: "call_1.env.1",
                request: shots[1]?.request as PromptRequest,
                since: minutesAgo(42),
                deadline: new Date(Date.now() + 23 * 3_600_000).toISOString(),
                state: "suspended",
              },
            ],
          },
          {
            name: "17727490012-rotate-keys",
            title: "Rotate the signing keys",
            prompts: [
              {
                prompt_id: "call_2.otp.1",
                request: shots[4]?.request as PromptRequest,
                since: minutesAgo(7),
                state: "suspended",
              },
            ],
          },
        ],
      }),
    answer: async () => ok(undefined),
    watch: () => () => {},
  };
  const started = await createWebPrompts({ inbox: source });
  if (started.isErr()) throw new Error(started.error.message);
  const inboxWeb = started.value;
  try {
    const page = await browser.newPage({ viewport: { width: 720, height: 400 } });
    await page.goto(inboxWeb.url);
    await page.locator(".secret-note").waitFor();
    await page.locator("html").evaluate((root) => root.ownerDocument.activeElement?.blur());
    await page.screenshot({ path: new URL("inbox.png", out).pathname, fullPage: true });
    await page.close();
    console.log("docs/inbox.png");
  } finally {
    await inboxWeb.close();
  }
}
