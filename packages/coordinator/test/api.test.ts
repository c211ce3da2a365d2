import { describe, expect, it } from "vitest";

// The barrels are the public API: an addition or removal here must be deliberate.
describe("the public API of @jp/coordinator", () => {
  it("exports exactly these values", async () => {
    expect(Object.keys(await import("../src/index.js")).sort()).toEqual([
      "ANSWERED_BY_METADATA_KEY",
      "DEFAULT_CANCELLATION_RESPONSE",
      "DEFAULT_ENV_ALLOWLIST",
      "DEFAULT_MAX_BUFFERED_EVENTS",
      "HumanUnreachableError",
      "INQUIRY_ERROR_REASONS",
      "MAX_PROMPTS_PER_QUESTION",
      "MAX_REPEATED_INVALID_REPLIES",
      "PENDING_METADATA_KEY",
      "PromptTimedOutError",
      "PromptUnsupportedError",
      "ROUTING_RULES",
      "ResumeAnswerError",
      "SecretMask",
      "TRACE_NAMES",
      "TURN_ENDED",
      "ToolCoordinator",
      "ToolsConfigError",
      "TurnState",
      "answerPendingPrompt",
      "answerPendingPromptInStore",
      "answeredByDefaultNote",
      "answersAddedSince",
      "applyToggleDirectives",
      "builtinExecutor",
      "builtinExecutorSource",
      "builtinInquirySource",
      "checkPromptReply",
      "combineExecutorSources",
      "coordinatorEvents",
      "createJsonSchemaInquiryBackend",
      "createLocalCommandExecutor",
      "createLocalCommandExecutorSource",
      "enabledToolNames",
      "inquiryId",
      "inquiryPromptText",
      "inquirySchemaFor",
      "isHumanOnly",
      "layerToolConfigs",
      "layerToolsConfigs",
      "listPendingPrompts",
      "parseToolsConfig",
      "questionConfigFor",
      "resolveDetached",
      "resolveToolConfig",
      "resumeInStore",
      "routeQuestion",
      "runStopOf",
      "targetOf",
      "toInquiryQuestion",
      "toolConfigSchema",
      "toolsConfigSchema",
      "traceCoordinator",
    ]);
  });

  it("exports the testing kit from @jp/coordinator/testing", async () => {
    expect(Object.keys(await import("../src/testing/index.js")).sort()).toEqual([
      "MockExecutor",
      "MockExecutorSource",
      "MockInquiryBackend",
      "MockPromptBackend",
      "waitForAbort",
    ]);
  });
});
