import { TurnState } from "@jp/coordinator";
import { MockExecutor } from "@jp/coordinator/testing";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { StandaloneWebPrompts } from "../../src/index.js";
import { describeInBrowser, isFocused, openPage } from "../support/browser.js";
import { conversation } from "../support/coordinator.js";
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

/** A tool that reports the arguments it ran with. */
const echo = () =>
  new MockExecutor((input) => ({
    type: "success",
    content: `ran with ${JSON.stringify(input.call.arguments)}`,
  }));

function shell(mode: "ask" | "edit") {
  const tool = echo();
  const chat = conversation(web.backend(), {
    executors: { shell: tool },
    tools: { shell: { run: mode, source: "local" } },
  });
  return { tool, chat };
}

describeInBrowser("permission and delivery prompts in the browser", (browser) => {
  it("Run: shows the tool and its arguments as text, focuses no button, runs on click", async () => {
    const page = await openPage(browser(), web);
    const { tool, chat } = shell("ask");
    const run = chat.run("shell", { cmd: "ls -la" });
    const heading = page.getByRole("heading", { name: "Run local tool shell?" });
    await heading.waitFor();
    await expect.poll(() => isFocused(heading)).toBe(true);
    expect(await page.getByLabel("Arguments", { exact: true }).textContent()).toBe(
      '{\n  "cmd": "ls -la"\n}',
    );
    // Enter on the focused heading does nothing: a tool never runs by accident.
    await page.keyboard.press("Enter");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const { responses } = await run;
    expect(responses[0]?.content).toBe('ran with {"cmd":"ls -la"}');
    expect(tool.executions).toHaveLength(1);
    await page.close();
  });

  it("Run + remember for this turn runs the next call without asking", async () => {
    const page = await openPage(browser(), web);
    const { tool, chat } = shell("ask");
    const turn = new TurnState();
    const run = chat.run("shell", { cmd: "ls" }, turn);
    await page.getByLabel("Remember for this turn").check();
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await run;
    await chat.run("shell", { cmd: "pwd" }, turn);
    expect(tool.executions).toHaveLength(2);
    expect(opened).toBe(1);
    await page.close();
  });

  it("Skip with a reason: the tool does not run and the reason reaches the assistant", async () => {
    const page = await openPage(browser(), web);
    const { tool, chat } = shell("ask");
    const run = chat.run("shell", { cmd: "rm -rf build" });
    await page.getByRole("button", { name: "Skip with a reason…" }).click();
    await page.getByLabel("Reason for skipping (optional)").fill("keep the build for now");
    await page
      .getByRole("group", { name: "Skip with a reason" })
      .getByRole("button", { name: "Skip" })
      .click();
    const { responses } = await run;
    expect(tool.executions).toEqual([]);
    expect(responses[0]?.content).toContain("keep the build for now");
    await page.close();
  });

  it("Edit arguments: invalid JSON is shown beside the editor, corrected, then run", async () => {
    const page = await openPage(browser(), web);
    const { tool, chat } = shell("ask");
    const run = chat.run("shell", { cmd: "ls" });
    await page.getByRole("button", { name: "Edit arguments…" }).click();
    const editor = page.getByLabel("Arguments (a JSON object)");
    await editor.fill('{"cmd": "ls -la",}');
    await page.getByRole("button", { name: "Run with these arguments" }).click();
    const error = page.getByRole("group", { name: "Edit the arguments" }).locator(".field-error");
    await expect.poll(() => error.textContent()).toContain("Not valid JSON");
    expect(await editor.getAttribute("aria-invalid")).toBe("true");
    await editor.fill("[1, 2]");
    await page.getByRole("button", { name: "Run with these arguments" }).click();
    await expect.poll(() => error.textContent()).toContain("must be a JSON object");
    await editor.fill('{"cmd": "ls -la"}');
    await page.getByRole("button", { name: "Run with these arguments" }).click();
    const { responses } = await run;
    expect(responses[0]?.content).toBe('ran with {"cmd":"ls -la"}');
    expect(tool.executions[0]?.call.arguments).toEqual({ cmd: "ls -la" });
    await page.close();
  });

  it("mode edit opens the editor first, focused", async () => {
    const page = await openPage(browser(), web);
    const { chat } = shell("edit");
    const run = chat.run("shell", { cmd: "ls" });
    const editor = page.getByLabel("Arguments (a JSON object)");
    await expect.poll(() => isFocused(editor)).toBe(true);
    await page.getByRole("button", { name: "Run with these arguments" }).click();
    expect((await run).responses[0]?.content).toBe('ran with {"cmd":"ls"}');
    await page.close();
  });

  it("deliver: Deliver (focused), Skip, and an edited result", async () => {
    const page = await openPage(browser(), web);
    const tool = new MockExecutor((input) => ({
      type: "success",
      content: `secret-free output of ${String(input.call.arguments.n)}`,
    }));
    const chat = conversation(web.backend(), {
      executors: { report: tool },
      tools: { report: { run: "unattended", result: "ask" } },
    });
    const heading = page.getByRole("heading", {
      name: "Deliver the result of report to the assistant?",
    });

    let run = chat.run("report", { n: 1 });
    await heading.waitFor();
    expect(await page.getByLabel("Result", { exact: true }).textContent()).toBe(
      "secret-free output of 1",
    );
    const deliver = page.getByRole("button", { name: "Deliver", exact: true });
    await expect.poll(() => isFocused(deliver)).toBe(true);
    await page.keyboard.press("Enter");
    expect((await run).responses[0]?.content).toBe("secret-free output of 1");

    run = chat.run("report", { n: 2 });
    await page.getByRole("button", { name: "Skip" }).click();
    expect((await run).responses[0]?.content).not.toContain("output of 2");

    run = chat.run("report", { n: 3 });
    await page.getByRole("button", { name: "Edit…" }).click();
    await page.getByLabel("Result to deliver").fill("a shorter result");
    await page.getByRole("button", { name: "Deliver edited result" }).click();
    expect((await run).responses[0]?.content).toBe("a shorter result");
    await page.close();
  });
});
