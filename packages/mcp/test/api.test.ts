import type { ExecutorSource } from "@jp/coordinator";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { McpConnection } from "../src/index.js";

describe("the public barrel", () => {
  it("exports exactly these values (additions must be deliberate)", async () => {
    expect(Object.keys(await import("../src/index.js")).sort()).toEqual([
      "DECISION_META_KEY",
      "ELICITATION_DECISIONS",
      "ELICITATION_STRING_FORMATS",
      "MAX_ANSWER_ATTEMPTS",
      "MAX_FORM_FIELDS",
      "MAX_FORM_OPTIONS",
      "MAX_URL_LENGTH",
      "MCP_CALL_METADATA_KEY",
      "answerFromContent",
      "checkElicitationUrl",
      "connectMcpServer",
      "createMcpToolServer",
      "decisionFor",
      "decisionMeta",
      "elicitationContent",
      "elicitationForQuestion",
      "questionsForElicitation",
    ]);
  });

  it("a connection is an executor source the coordinator takes as it is", () => {
    expectTypeOf<McpConnection>().toExtend<ExecutorSource>();
  });
});
