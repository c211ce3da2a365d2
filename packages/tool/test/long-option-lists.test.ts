import { describe, expect, it } from "vitest";
import { defineQuestion, validateAnswer } from "../src/index.js";

// Options may come from a model or an MCP server, and lists run long. The checks look options up
// in a set (a lookup in the whole list per option made 50,000 options take seconds); these
// cases hold what the checks find at that size, not how long they take.
const OPTIONS = Array.from({ length: 50_000 }, (_, i) => `option-${i}`);

describe("long option lists", () => {
  it("defineQuestion takes 50,000 options and a default of all of them", () => {
    const defined = defineQuestion({
      id: "pick",
      text: "Which ones?",
      answer_type: { type: "multi_select", options: OPTIONS },
      default: [...OPTIONS].reverse(),
    });
    expect(defined.isOk()).toBe(true);
  });

  it("still finds a duplicate at the end of a long list", () => {
    const defined = defineQuestion({
      id: "pick",
      text: "Which one?",
      answer_type: { type: "select", options: [...OPTIONS, "option-0"] },
    });
    expect(defined.isErr() && defined.error.message).toBe(
      'option "option-0" is listed more than once in answer_type.options',
    );
  });

  it("validateAnswer takes 50,000 choices of 50,000 options, and refuses one that is not an option", () => {
    const checked = validateAnswer(
      { type: "multi_select", options: OPTIONS },
      [...OPTIONS].reverse(),
    );
    expect(checked.isOk()).toBe(true);
    const unknown = validateAnswer({ type: "multi_select", options: OPTIONS }, [
      ...OPTIONS,
      "option-50000",
    ]);
    expect(unknown.isErr()).toBe(true);
  });
});
