import { describe, expect, it } from "vitest";
import {
  ConversationStream,
  createEvent,
  decodeEvent,
  type InquiryResponse,
  inquiryResponseLine,
  type StreamEvent,
  toMarkdown,
} from "../src/index.js";
import { configDelta, T0 } from "./support/events.js";

function response(json: Record<string, unknown>): InquiryResponse {
  const event = decodeEvent({
    timestamp: T0,
    type: "inquiry_response",
    id: "call_1.q.1",
    ...json,
  })._unsafeUnwrap();
  if (event.type !== "inquiry_response") throw new Error("not an inquiry response");
  return event as InquiryResponse;
}

describe("inquiryResponseLine (RFD 082 reader behavior)", () => {
  it.each<{ json: Record<string, unknown>; line: string }>([
    { json: { outcome: "answered", answer: true }, line: "Answer: true" },
    { json: { outcome: "answered", answer: false }, line: "Answer: false" },
    { json: { outcome: "answered", answer: "yes" }, line: "Answer: yes" },
    { json: { outcome: "answered", answer: ["a", "b"] }, line: 'Answer: ["a","b"]' },
    {
      json: { outcome: "answered", answer: { branch: "main" } },
      line: 'Answer: {"branch":"main"}',
    },
    { json: { outcome: "answered", answer: 3 }, line: "Answer: 3" },
    { json: { outcome: "answered", answer: null }, line: "Answer: null" },
    { json: { answer: "legacy" }, line: "Answer: legacy" },
    { json: { outcome: "redacted" }, line: "Answer: <redacted>" },
    { json: { outcome: "redacted", answer: "hunter2" }, line: "Answer: <redacted>" },
    { json: { outcome: "cancelled", reason: "user" }, line: "Cancelled (user)" },
    { json: { outcome: "cancelled" }, line: "Cancelled (user)" },
    { json: { outcome: "cancelled", reason: "backend_error" }, line: "Cancelled (backend_error)" },
    {
      json: { outcome: "cancelled", reason: "no_prompt_backend" },
      line: "Cancelled (no_prompt_backend)",
    },
    {
      json: { outcome: "cancelled", reason: "assistant_routing_denied" },
      line: "Cancelled (assistant_routing_denied)",
    },
    {
      json: { outcome: "cancelled", reason: "invalid_static_answer" },
      line: "Cancelled (invalid_static_answer)",
    },
    {
      json: { outcome: "cancelled", reason: "some_future_variant" },
      line: "Cancelled (some_future_variant)",
    },
  ])("$json → $line", ({ json, line }) => {
    const event = response(json);
    expect(inquiryResponseLine(event)).toBe(line);
    const stream = ConversationStream.from([
      createEvent("chat_request", { timestamp: T0, content: "go" }),
      event,
    ]);
    expect(toMarkdown(stream)).toBe(`## Turn 1\n\n### User\n\ngo\n\n${line}\n`);
  });
});

describe("toMarkdown", () => {
  it("renders a small conversation, one section per turn", () => {
    const events: StreamEvent[] = [
      configDelta(),
      createEvent("turn_start", { timestamp: T0 }),
      createEvent("chat_request", {
        timestamp: T0,
        content: "Why is the date missing from `jp --version`?",
      }),
      createEvent("chat_response", {
        timestamp: T0,
        reasoning: "Check build.rs.\n\nThen main.rs.",
      }),
      createEvent("chat_response", { timestamp: T0, message: "Let me look." }),
      createEvent("tool_call_request", {
        timestamp: T0,
        id: "t1",
        name: "fs_read_file",
        arguments: { path: "crates/jp_cli/build.rs" },
      }),
      createEvent("tool_call_response", {
        timestamp: T0,
        id: "t1",
        content: "docs:\n```rust\nlet x = 1;\n```",
        is_error: false,
      }),
      createEvent("tool_call_request", {
        timestamp: T0,
        id: "t2",
        name: "fs_modify_file",
        arguments: {},
      }),
      createEvent("inquiry_request", {
        timestamp: T0,
        id: "t2.apply_changes.1",
        source: { source: "tool", name: "fs_modify_file" },
        question: {
          text: "Apply the patch?",
          answer_type: { type: "boolean" },
          context: "+ date\n- none",
        },
      }),
      createEvent("inquiry_response", {
        timestamp: T0,
        outcome: "answered",
        id: "t2.apply_changes.1",
        answer: true,
      }),
      createEvent("tool_call_response", {
        timestamp: T0,
        id: "t2",
        content: "boom",
        is_error: true,
      }),
      createEvent("turn_start", { timestamp: T0 }),
      createEvent("chat_request", { timestamp: T0, content: "Thanks", author: "reviewer" }),
      createEvent("chat_response", { timestamp: T0, data: { ok: true } }),
      createEvent("inquiry_request", {
        timestamp: T0,
        id: "ask.1",
        source: { source: "assistant" },
        question: {
          text: "Pick one",
          answer_type: {
            type: "select",
            options: [{ value: "a", description: "first" }, { value: 2 }],
          },
        },
      }),
      createEvent("inquiry_response", {
        timestamp: T0,
        outcome: "cancelled",
        id: "ask.1",
        reason: "user",
      }),
    ];
    const expected = [
      "## Turn 1",
      "### User",
      "Why is the date missing from `jp --version`?",
      "> Reasoning:\n>\n> Check build.rs.\n>\n> Then main.rs.",
      "### Assistant",
      "Let me look.",
      "#### Tool call `fs_read_file`",
      '```json\n{\n  "path": "crates/jp_cli/build.rs"\n}\n```',
      "#### Tool result",
      "````\ndocs:\n```rust\nlet x = 1;\n```\n````",
      "#### Tool call `fs_modify_file`",
      "```json\n{}\n```",
      "**Question** (tool `fs_modify_file`): Apply the patch?",
      "> + date\n> - none",
      "Answer: true",
      "#### Tool error",
      "```\nboom\n```",
      "## Turn 2",
      "### reviewer",
      "Thanks",
      "### Assistant (structured)",
      '```json\n{\n  "ok": true\n}\n```',
      "**Question** (assistant): Pick one",
      "- a\n- 2",
      "Cancelled (user)",
    ].join("\n\n");
    expect(toMarkdown(ConversationStream.from(events))).toBe(`${expected}\n`);
  });

  it.each<{ content: string; fence: string }>([
    { content: "plain", fence: "```" },
    { content: "a ``` b", fence: "````" },
    { content: "````\nnested\n````", fence: "`````" },
    { content: "inline `code` only", fence: "```" },
  ])(
    "tool content $content is fenced with $fence so it cannot close the fence early",
    ({ content, fence }) => {
      const stream = ConversationStream.from([
        createEvent("chat_request", { timestamp: T0, content: "go" }),
        createEvent("tool_call_request", { timestamp: T0, id: "t", name: "x", arguments: {} }),
        createEvent("tool_call_response", { timestamp: T0, id: "t", content, is_error: false }),
      ]);
      expect(toMarkdown(stream)).toContain(`#### Tool result\n\n${fence}\n${content}\n${fence}\n`);
    },
  );

  it("tool arguments containing backticks get a longer fence", () => {
    const stream = ConversationStream.from([
      createEvent("chat_request", { timestamp: T0, content: "go" }),
      createEvent("tool_call_request", {
        timestamp: T0,
        id: "t",
        name: "x",
        arguments: { patch: "```diff" },
      }),
    ]);
    expect(toMarkdown(stream)).toContain('````json\n{\n  "patch": "```diff"\n}\n````');
  });

  it("shows a redacted secret's question but never its answer", () => {
    const stream = ConversationStream.decode([
      { timestamp: T0, type: "turn_start" },
      { timestamp: T0, type: "chat_request", content: "Deploy" },
      { timestamp: T0, type: "tool_call_request", id: "t1", name: "deploy", arguments: {} },
      {
        timestamp: T0,
        type: "inquiry_request",
        id: "t1.passphrase.1",
        source: { source: "tool", name: "deploy" },
        question: { text: "SSH passphrase for the deploy key?", answer_type: { type: "secret" } },
      },
      {
        timestamp: T0,
        type: "inquiry_response",
        outcome: "redacted",
        id: "t1.passphrase.1",
        answer: "hunter2",
      },
      { timestamp: T0, type: "tool_call_response", id: "t1", content: "deployed", is_error: false },
    ])._unsafeUnwrap();
    const markdown = toMarkdown(stream);
    expect(markdown).toContain("**Question** (tool `deploy`): SSH passphrase for the deploy key?");
    expect(markdown).toContain("\n\nAnswer: <redacted>\n\n");
    expect(markdown).not.toContain("hunter2");
  });

  it("renders a legacy stream without turn_start as turn 1, skipping config deltas and unknown entries", () => {
    const stream = ConversationStream.from([
      configDelta(),
      createEvent("chat_request", { timestamp: T0, content: "hi" }),
      { timestamp: T0, type: "compaction", summary: "not shown" },
      createEvent("chat_response", { timestamp: T0, message: "hello" }),
    ]);
    expect(toMarkdown(stream)).toBe("## Turn 1\n\n### User\n\nhi\n\n### Assistant\n\nhello\n");
  });

  it.each<{ name: string; events: StreamEvent[] }>([
    { name: "an empty stream", events: [] },
    { name: "only a config delta", events: [configDelta()] },
  ])("$name renders as the empty string", ({ events }) => {
    expect(toMarkdown(ConversationStream.from(events))).toBe("");
  });
});

describe("toMarkdown on pathological streams that decode fine", () => {
  // Built and compared as text: JSON.stringify and deep equality recurse, and would overflow.
  const deepText = (depth: number, leaf: string) =>
    `${"[".repeat(depth)}${JSON.stringify(leaf)}${"]".repeat(depth)}`;
  const decoded = (events: unknown[]) => ConversationStream.decode(events)._unsafeUnwrap();

  it.each([5_000, 100_000])("tool arguments nested %i levels deep render losslessly", (depth) => {
    const args = `{"a":${deepText(depth, "bottom")}}`;
    const stream = decoded([
      { timestamp: T0, type: "turn_start" },
      { timestamp: T0, type: "chat_request", content: "x" },
      { timestamp: T0, type: "tool_call_request", id: "a", name: "x", arguments: JSON.parse(args) },
    ]);
    const markdown = toMarkdown(stream);
    const fenced = /```json\n([\s\S]*)\n```/.exec(markdown)?.[1] ?? "";
    expect(fenced.replace(/\s/g, "")).toBe(args);
    expect(fenced.startsWith('{\n  "a": [\n    [\n')).toBe(true);
    expect(markdown.length).toBeLessThan(depth * 2 + 10_000);
  });

  it("a deep answer, deep structured data and deep option values render", () => {
    const text = deepText(5_000, "v");
    const value = () => JSON.parse(text);
    const stream = decoded([
      { timestamp: T0, type: "turn_start" },
      { timestamp: T0, type: "chat_request", content: "x" },
      { timestamp: T0, type: "chat_response", data: value() },
      {
        timestamp: T0,
        type: "inquiry_request",
        id: "c.q.1",
        source: { source: "tool", name: "t" },
        question: { text: "?", answer_type: { type: "select", options: [{ value: value() }] } },
      },
      {
        timestamp: T0,
        type: "inquiry_response",
        outcome: "answered",
        id: "c.q.1",
        answer: value(),
      },
    ]);
    const markdown = toMarkdown(stream);
    expect(markdown).toContain(`Answer: ${text}`);
    expect(markdown).toContain(`- ${text}`);
    expect(markdown).toContain("### Assistant (structured)\n\n```json\n[\n  [\n");
  });

  it("a tool result with 300,000 backtick runs gets a fence longer than the longest", () => {
    const content = `${"` ".repeat(300_000)}\`\`\`\`\``;
    const stream = decoded([
      { timestamp: T0, type: "turn_start" },
      { timestamp: T0, type: "chat_request", content: "x" },
      { timestamp: T0, type: "tool_call_request", id: "a", name: "x", arguments: {} },
      { timestamp: T0, type: "tool_call_response", id: "a", content, is_error: false },
    ]);
    expect(toMarkdown(stream)).toContain(`\`\`\`\`\`\`\n${content}\n\`\`\`\`\`\``);
  });
});
