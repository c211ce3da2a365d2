import { expect, it } from "vitest";

it("@jp/builtins exports exactly its public API", async () => {
  const api = await import("../src/index.js");
  expect(Object.keys(api).sort()).toEqual([
    "ASK_USER_ANSWER_TYPES",
    "ASK_USER_DESCRIPTION",
    "ASK_USER_PARAMETERS",
    "MISMATCHED_ANSWER",
    "OpenToolCallError",
    "PROVIDER_TOOL_NAME_PATTERN",
    "SINGLE_QUESTION_ID",
    "askUser",
    "builtinToolConfigs",
    "createAnthropicInquiryBackend",
    "createCoordinator",
    "createOpenAIChatInquiryBackend",
    "createOpenAIResponsesInquiryBackend",
    "parseAskUserArguments",
    "recordAnthropicReply",
    "recordOpenAIChatReply",
    "recordOpenAIResponsesReply",
    "subAgentPrompts",
    "toAnthropicMessages",
    "toOpenAIChatMessages",
    "toOpenAIResponsesInput",
    "toProviderTools",
    "toolInputSchema",
  ]);
});

it("the exported values are the documented ones", async () => {
  const api = await import("../src/index.js");
  expect(api.SINGLE_QUESTION_ID).toBe("answer");
  expect(typeof api.askUser.execute).toBe("function");
  expect(api.askUser.inquirySource?.("ask_user")).toEqual({ source: "assistant" });
  expect(typeof api.builtinToolConfigs).toBe("function");
  expect(typeof api.parseAskUserArguments).toBe("function");
});
