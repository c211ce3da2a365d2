import { afterEach, beforeEach, expect, it } from "vitest";
import type { StandaloneWebPrompts } from "../../src/index.js";
import { describeInBrowser, isFocused, openPage } from "../support/browser.js";
import { conversation, inquiryTrail } from "../support/coordinator.js";
import { startWebPrompts } from "../support/start.js";

let web: StandaloneWebPrompts;
beforeEach(async () => {
  web = await startWebPrompts();
});
afterEach(async () => {
  await web.close();
});

const FORM = {
  questions: [
    { id: "target", text: "Target directory?", answer_type: "text" },
    { id: "mode", text: "Apply how?", answer_type: "select", options: ["backup", "overwrite"] },
    { id: "confirm", text: "Proceed?", answer_type: "boolean" },
  ],
};

describeInBrowser("forms in the browser", (browser) => {
  it("walks a form with [N/M] progress; Back returns with the earlier answer pre-filled", async () => {
    const page = await openPage(browser(), web);
    const chat = conversation(web.backend());
    const run = chat.run("ask_user", FORM);
    const progress = page.locator(".progress");
    await page.getByRole("heading", { name: "Target directory?" }).waitFor();
    expect(await progress.textContent()).toBe("[1/3]");
    // The first question offers no Back.
    expect(await page.getByRole("button", { name: "Back" }).count()).toBe(0);
    await page.getByLabel("Your answer").fill("/srv/app");
    await page.getByRole("button", { name: "Answer" }).click();
    await page.getByRole("heading", { name: "Apply how?" }).waitFor();
    expect(await progress.textContent()).toBe("[2/3]");
    await page.getByRole("button", { name: "Back" }).click();
    await page.getByRole("heading", { name: "Target directory?" }).waitFor();
    const target = page.getByLabel("Your answer");
    expect(await target.inputValue()).toBe("/srv/app");
    await target.fill("/srv/web");
    await target.press("Enter");
    await page.getByRole("radio", { name: "overwrite" }).check();
    await page.getByRole("button", { name: "Answer" }).click();
    await page.getByRole("heading", { name: "Proceed?" }).waitFor();
    expect(await progress.textContent()).toBe("[3/3]");
    await page.getByRole("button", { name: "Yes" }).click();
    const { responses } = await run;
    expect(JSON.parse(responses[0]?.content ?? "")).toEqual({
      target: "/srv/web",
      mode: "overwrite",
      confirm: true,
    });
    expect(inquiryTrail(chat.stream.events)).toEqual([
      ["call_1.target.1", "answered", '"/srv/app"'],
      ["call_1.mode.1", "cancelled", "back"],
      ["call_1.target.2", "answered", '"/srv/web"'],
      ["call_1.mode.2", "answered", '"overwrite"'],
      ["call_1.confirm.1", "answered", "true"],
    ]);
    await page.close();
  });

  it("Reply leaves the form with a message for the assistant", async () => {
    const page = await openPage(browser(), web);
    const chat = conversation(web.backend());
    const run = chat.run("ask_user", FORM);
    await page.getByLabel("Your answer").fill("/srv/app");
    await page.getByRole("button", { name: "Answer" }).click();
    await page.getByRole("heading", { name: "Apply how?" }).waitFor();
    await page.getByRole("button", { name: "Reply…" }).click();
    const message = page.getByLabel("Message to the assistant (optional)");
    await expect.poll(() => isFocused(message)).toBe(true);
    await message.fill("Which files would be overwritten?");
    await page.getByRole("button", { name: "Send reply" }).click();
    const { responses, endTurn } = await run;
    expect(endTurn).toBe(false);
    expect(JSON.parse(responses[0]?.content ?? "")).toEqual({
      cancelled: true,
      answered: { target: "/srv/app" },
      message: "Which files would be overwritten?",
    });
    expect(inquiryTrail(chat.stream.events).at(-1)).toEqual([
      "call_1.mode.1",
      "cancelled",
      "reply",
    ]);
    await page.close();
  });

  it("End Turn ends the turn", async () => {
    const page = await openPage(browser(), web);
    const chat = conversation(web.backend());
    const run = chat.run("ask_user", FORM);
    await page.getByRole("button", { name: "End Turn" }).click();
    const { endTurn } = await run;
    expect(endTurn).toBe(true);
    expect(inquiryTrail(chat.stream.events)).toEqual([
      ["call_1.target.1", "cancelled", "end_turn"],
    ]);
    await expect.poll(() => page.locator("#idle").isVisible()).toBe(true);
    await page.close();
  });

  it("Cancel is the person's own cancel", async () => {
    const page = await openPage(browser(), web);
    const chat = conversation(web.backend());
    const run = chat.run("ask_user", { question: "Name?", answer_type: "text" });
    await page.getByRole("button", { name: "Cancel" }).click();
    await run;
    expect(inquiryTrail(chat.stream.events)).toEqual([["call_1.answer.1", "cancelled", "user"]]);
    await page.close();
  });
});
