import { KNOWN_CANCELLATION_REASONS } from "@jp/conversation";
import { describe, expect, it } from "vitest";
import {
  DECISION_META_KEY,
  decisionFor,
  decisionMeta,
  ELICITATION_DECISIONS,
} from "../src/index.js";

describe("decisionFor: what a server is told when a question closes without an answer", () => {
  it.each([
    ["user", "cancel", "person"],
    ["reply", "decline", "person"],
    ["end_turn", "cancel", "person"],
    ["timeout", "cancel", "host"],
    ["interrupted", "cancel", "host"],
    ["turn_ended", "cancel", "host"],
    ["backend_error", "cancel", "host"],
    ["no_prompt_backend", "decline", "host"],
    ["assistant_routing_denied", "decline", "host"],
    ["invalid_static_answer", "decline", "host"],
    ["a_reason_from_a_newer_version", "cancel", "host"],
  ])("%s → %s by the %s", (reason, action, by) => {
    expect(decisionFor(reason)).toEqual({ action, by });
  });

  it.each(["back", "invalid_answer"])("%s is asked again: no decision", (reason) => {
    expect(decisionFor(reason)).toBeUndefined();
  });

  it("covers every reason the SDK writes", () => {
    for (const reason of KNOWN_CANCELLATION_REASONS) {
      const decided = decisionFor(reason);
      if (reason === "back" || reason === "invalid_answer") continue;
      expect(decided, reason).toBeDefined();
    }
  });

  it("only the person's own choices read as the person's", () => {
    const byPerson = Object.entries(ELICITATION_DECISIONS)
      .filter(([, d]) => d.by === "person")
      .map(([reason]) => reason);
    expect(byPerson.sort()).toEqual(["end_turn", "reply", "user"]);
  });

  it("carries the decision under one _meta key", () => {
    expect(decisionMeta("host", "timeout")).toEqual({
      [DECISION_META_KEY]: { by: "host", reason: "timeout" },
    });
    expect(decisionMeta("person")).toEqual({ "jp.inquiry/decision": { by: "person" } });
  });
});
