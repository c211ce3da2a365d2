import { afterEach, beforeEach, expect, it } from "vitest";
import { createWebPrompts, type StandaloneWebPrompts } from "../../src/index.js";
import { describeInBrowser, openPage } from "../support/browser.js";
import { conversation, inquiryTrail } from "../support/coordinator.js";

let web: StandaloneWebPrompts;
beforeEach(async () => {
  web = await createWebPrompts();
});
afterEach(async () => {
  await web.close();
});

describeInBrowser("questions in the browser", (browser) => {
  it("answers a boolean question with Yes", async () => {
    const page = await openPage(browser(), web);
    const chat = conversation(web.backend());
    const run = chat.run("ask_user", { question: "Ship it?", answer_type: "boolean" });
    await page.getByRole("button", { name: "Yes" }).click();
    const { responses } = await run;
    expect(responses[0]?.content).toContain("true");
    expect(inquiryTrail(chat.stream.events)).toEqual([["call_1.answer.1", "answered", "true"]]);
    await page.close();
  });
});
