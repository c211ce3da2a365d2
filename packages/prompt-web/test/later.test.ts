import { answerPendingPrompt, TurnState } from "@jp/coordinator";
import { afterEach, describe, expect, it } from "vitest";
import type { StandaloneWebPrompts } from "../src/index.js";
import { conversation, inquiryTrail } from "./support/coordinator.js";
import { TEXT_QUESTION } from "./support/server.js";
import { startWebPrompts } from "./support/start.js";

let web: StandaloneWebPrompts;
afterEach(async () => {
  await web.close();
});

const ASK_NAME = { question: "Name?", answer_type: "text" };

describe('whenNoPage: "later"', () => {
  it("with no page open, the turn suspends at the question instead of refusing it; the answer given later resumes it", async () => {
    web = await startWebPrompts();
    const backend = web.backend({ whenNoPage: "later" });
    expect(await backend.isHumanReachable()).toBe(true);
    const { stream, coordinator } = conversation(backend);
    const result = await coordinator.run(
      [{ id: "call_1", name: "ask_user", arguments: ASK_NAME }],
      {
        turn: new TurnState(),
      },
    );
    expect(result.pending.map((p) => p.prompt_id)).toEqual(["call_1.answer.1"]);
    expect(result.responses).toEqual([]);
    // Nothing was refused: the question waits, and an answer from anywhere finishes the call.
    answerPendingPrompt(stream, "call_1.answer.1", {
      type: "answer",
      value: "Ada",
    })._unsafeUnwrap();
    const resumed = await coordinator.resume({ suspend: true });
    expect(resumed.responses.map((r) => JSON.parse(r.content).answer)).toEqual(["Ada"]);
  });

  it("a prompt deadline that passes while it waits for a page is recorded as a timeout, not left for later", async () => {
    web = await startWebPrompts({ waitForPageMs: 10_000 });
    const { stream, coordinator } = conversation(web.backend({ whenNoPage: "later" }));
    const started = Date.now();
    const result = await coordinator.run(
      [{ id: "call_1", name: "ask_user", arguments: ASK_NAME }],
      { turn: new TurnState(), promptTimeoutMs: 100 },
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.pending).toEqual([]);
    expect(inquiryTrail(stream.events)).toEqual([["call_1.answer.1", "cancelled", "timeout"]]);
  });

  it("a stop while the prompt waits for a page ends the wait at once and resolves cancelled", async () => {
    web = await startWebPrompts({ waitForPageMs: 3000 });
    const abort = new AbortController();
    const reply = web.backend({ whenNoPage: "later" }).ask(TEXT_QUESTION, { signal: abort.signal });
    setTimeout(() => abort.abort(), 50);
    expect(await reply).toEqual({ type: "cancelled" });
  });

  it("the default still refuses with no page open", async () => {
    web = await startWebPrompts();
    expect(await web.backend().isHumanReachable()).toBe(false);
  });

  it("rejects an unknown whenNoPage", async () => {
    web = await startWebPrompts();
    expect(() => web.backend({ whenNoPage: "never" as never })).toThrow(TypeError);
  });
});
