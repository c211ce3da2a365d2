import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { HumanUnreachableError, type PromptRequest } from "@jp/coordinator";
import { describe, expect, it } from "vitest";
import { createTerminalPromptBackend } from "../src/index.js";
import { KEYS } from "./support/fake-terminal.js";
import {
  ALL_CONTROLS,
  deliverRequest,
  harness,
  permissionRequest,
  questionRequest,
} from "./support/harness.js";
import { scriptedEditor } from "./support/scripted-editor.js";

describe("cancellation", () => {
  // [prompt, request, what to wait for, keys before Ctrl+C]
  const atEveryPrompt: [string, PromptRequest, string, string[]][] = [
    ["inline keys", questionRequest({ answer_type: { type: "boolean" } }), "[y,n]", []],
    [
      "option list",
      questionRequest({ answer_type: { type: "select", options: ["a", "b"] } }),
      "2 b",
      [],
    ],
    [
      "checklist",
      questionRequest({ answer_type: { type: "multi_select", options: ["a", "b"] } }),
      "⏎ submit",
      [],
    ],
    [
      "pre-prompt menu",
      questionRequest({ answer_type: { type: "text" } }, { controls: ALL_CONTROLS }),
      "End Turn",
      [],
    ],
    ["text input", questionRequest({ answer_type: { type: "text" } }), "Proceed?", ["abc"]],
    ["secret input", questionRequest({ answer_type: { type: "secret" } }), "Proceed?", ["abc"]],
    [
      "reply message",
      questionRequest({ answer_type: { type: "boolean" } }, { controls: ALL_CONTROLS }),
      "[y,Y,n,N,b,r,s]",
      ["r"],
    ],
    ["permission keys", permissionRequest(), "[y,Y,n,N,r,e,p]", []],
    ["skip reason", permissionRequest(), "[y,Y,n,N,r,e,p]", ["r"]],
    ["deliver keys", deliverRequest(), "[y,n,e]", []],
  ];

  it.each(atEveryPrompt)(
    "Ctrl+C at the %s resolves cancelled",
    async (_what, request, ready, keys) => {
      const { term, ask } = harness();
      const reply = ask(request);
      await term.waitFor(ready);
      term.press(...keys);
      await new Promise((resolve) => setTimeout(resolve, 20));
      term.press(KEYS.ctrlC);
      await expect(reply).resolves.toEqual({ type: "cancelled" });
    },
  );

  // Ctrl+D on an empty line is end of input (readline closes): the person's cancel, at once,
  // never a prompt left waiting on a terminal that echoes again.
  it.each([
    ["text input", questionRequest({ answer_type: { type: "text" } }), "Proceed?"],
    ["secret input", questionRequest({ answer_type: { type: "secret" } }), "Proceed?"],
    ["boolean keys", questionRequest({ answer_type: { type: "boolean" } }), "[y,n]"],
    ["permission keys", permissionRequest(), "[y,Y,n,N,r,e,p]"],
  ] as const)("Ctrl+D at the %s resolves cancelled", async (_what, request, ready) => {
    const { term, ask } = harness();
    const reply = ask(request);
    await term.waitFor(ready);
    term.press("\x04");
    await expect(reply).resolves.toEqual({ type: "cancelled" });
    expect(term.plain()).toContain("✖ cancelled");
  });

  it("Ctrl+D after typed text deletes forward, as readline does: the prompt goes on", async () => {
    const { term, ask } = harness();
    const reply = ask(questionRequest({ answer_type: { type: "text" } }));
    await term.waitFor("Proceed?");
    term.press("ab", "\x04");
    await new Promise((resolve) => setTimeout(resolve, 20));
    term.press("c", KEYS.enter);
    await expect(reply).resolves.toEqual({ type: "answer", value: "abc" });
  });

  it("an aborted signal resolves cancelled", async () => {
    const { term, ask } = harness();
    const controller = new AbortController();
    const reply = ask(permissionRequest(), controller.signal);
    await term.waitFor("[y,Y,n,N,r,e,p]");
    controller.abort();
    await expect(reply).resolves.toEqual({ type: "cancelled" });
  });

  it("a signal aborted before asking resolves cancelled without drawing anything", async () => {
    const { term, ask } = harness();
    await expect(ask(permissionRequest(), AbortSignal.abort())).resolves.toEqual({
      type: "cancelled",
    });
    expect(term.raw()).toBe("");
  });

  it("an abort while the editor is open stops the editor and resolves cancelled", async () => {
    const editor = scriptedEditor([{ hang: true }]);
    try {
      const { ask } = harness({ env: editor.env });
      const controller = new AbortController();
      const reply = ask(permissionRequest({ mode: "edit" }), controller.signal);
      await expect.poll(() => editor.seen().length).toBe(1);
      controller.abort();
      await expect(reply).resolves.toEqual({ type: "cancelled" });
    } finally {
      editor.cleanup();
    }
  });

  // Closing is the host's doing: the person did not cancel, they were no longer reachable.
  it("close() fails the prompt in flight as the person not reached, not as their cancel", async () => {
    const { term, ask, backend } = harness();
    const reply = ask(deliverRequest());
    await term.waitFor("[y,n,e]");
    backend.close();
    const error = await reply.then(
      () => undefined,
      (cause: unknown) => cause,
    );
    expect(error).toBeInstanceOf(HumanUnreachableError);
    expect(String(error)).toContain(
      "the terminal prompt backend was closed while the prompt was shown",
    );
    expect(term.plain()).toContain("✖ closed");
    expect(term.plain()).not.toContain("cancelled");
  });

  it("after close(), prompts waiting their turn and prompts asked later fail unshown", async () => {
    const { term, ask, backend } = harness();
    const first = ask(deliverRequest({ tool_name: "first" }));
    const queued = ask(deliverRequest({ tool_name: "second" }));
    await term.waitFor("[y,n,e]");
    expect(backend.isHumanReachable()).toBe(true);
    backend.close();
    backend.close(); // idempotent
    const failures = await Promise.all(
      [first, queued, ask(deliverRequest({ tool_name: "third" }))].map((reply) =>
        reply.then(
          () => undefined,
          (cause: unknown) => cause,
        ),
      ),
    );
    for (const error of failures) expect(error).toBeInstanceOf(HumanUnreachableError);
    expect(String(failures[1])).toContain("the terminal prompt backend was closed");
    expect(term.plain()).not.toContain("second");
    expect(term.plain()).not.toContain("third");
    expect(backend.isHumanReachable()).toBe(false);
  });

  it("a signal aborted together with close() stays the coordinator's stop", async () => {
    const { term, ask, backend } = harness();
    const controller = new AbortController();
    const reply = ask(deliverRequest(), controller.signal);
    await term.waitFor("[y,n,e]");
    controller.abort();
    backend.close();
    await expect(reply).resolves.toEqual({ type: "cancelled" });
  });

  // RFD 082: end of input at the prompt takes the user path, like Ctrl+C, not a backend error.
  it.each<[string, (input: PassThrough) => void]>([
    ["ends (stdin closed, or the terminal hung up)", (input) => input.end()],
    ["is destroyed", (input) => input.destroy()],
  ])("input that %s mid-prompt resolves cancelled", async (_what, hangUp) => {
    const { term, ask } = harness();
    const reply = ask(questionRequest({ answer_type: { type: "text" } }));
    await term.waitFor("Proceed?");
    hangUp(term.input);
    await expect(reply).resolves.toEqual({ type: "cancelled" });
  });

  it("after the input ended, no human is reachable and a later prompt rejects unshown", async () => {
    const { term, ask, backend } = harness();
    const first = ask(deliverRequest({ tool_name: "first" }));
    const queued = ask(deliverRequest({ tool_name: "second" }));
    await term.waitFor("[y,n,e]");
    term.input.end();
    await expect(first).resolves.toEqual({ type: "cancelled" });
    const error = await queued.then(
      () => undefined,
      (cause: unknown) => cause,
    );
    expect(error).toBeInstanceOf(HumanUnreachableError);
    expect(String(error)).toContain("the terminal's input has ended");
    expect(term.plain()).not.toContain("second");
    expect(backend.isHumanReachable()).toBe(false);
  });
});

describe("one prompt at a time", () => {
  it("shows a second prompt only once the first is answered", async () => {
    const { term, ask } = harness();
    const first = ask(deliverRequest({ tool_name: "first" }));
    const second = ask(deliverRequest({ tool_name: "second" }));
    await term.waitFor("Deliver first result");
    expect(term.plain()).not.toContain("second");
    term.press("n");
    await term.waitFor("Deliver second result");
    term.press("y");
    await expect(first).resolves.toEqual({ type: "skip" });
    await expect(second).resolves.toEqual({ type: "deliver" });
  });

  it("lets a queued prompt whose signal aborts leave at once", async () => {
    const { term, ask } = harness();
    const first = ask(deliverRequest({ tool_name: "first" }));
    const controller = new AbortController();
    const second = ask(deliverRequest({ tool_name: "second" }), controller.signal);
    await term.waitFor("Deliver first result");
    controller.abort();
    await expect(second).resolves.toEqual({ type: "cancelled" });
    term.press("y");
    await expect(first).resolves.toEqual({ type: "deliver" });
  });
});

describe("isHumanReachable", () => {
  it("is true with injected streams", () => {
    expect(harness().backend.isHumanReachable()).toBe(true);
  });

  it.each([
    ["a missing path", () => "/nonexistent/tty"],
    [
      "a regular file",
      () => {
        const dir = mkdtempSync(join(tmpdir(), "jp-tty-test-"));
        const file = join(dir, "not-a-tty");
        writeFileSync(file, "");
        return file;
      },
    ],
  ])("is false when the terminal path is %s", (_what, path) => {
    const ttyPath = path();
    try {
      expect(createTerminalPromptBackend({ ttyPath }).isHumanReachable()).toBe(false);
    } finally {
      if (ttyPath.includes("jp-tty-test-")) rmSync(join(ttyPath, ".."), { recursive: true });
    }
  });

  it("asking when the terminal cannot be opened rejects: the person cannot be reached", async () => {
    const backend = createTerminalPromptBackend({ ttyPath: "/nonexistent/tty" });
    const reply = backend.ask(deliverRequest(), { signal: new AbortController().signal });
    await expect(reply).rejects.toThrow("cannot open the terminal /nonexistent/tty");
    await expect(reply).rejects.toBeInstanceOf(HumanUnreachableError);
  });

  it("refuses only one injected stream", () => {
    expect(() => createTerminalPromptBackend({ input: new PassThrough() })).toThrow(TypeError);
  });
});
