import type {
  DeliverReply,
  PermissionReply,
  PromptBackend,
  PromptRequest,
  QuestionReply,
} from "@jp/coordinator";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type {
  deliverReplySchema,
  PromptParams,
  PromptReply,
  permissionReplySchema,
  questionReplySchema,
  RpcPromptBackend,
} from "../src/index.js";

describe("the public barrel", () => {
  it("exports exactly these values (additions must be deliberate)", async () => {
    expect(Object.keys(await import("../src/index.js")).sort()).toEqual([
      "DEFAULT_HANDSHAKE_TIMEOUT_MS",
      "DEFAULT_MAX_LINE_BYTES",
      "DEFAULT_MAX_OPEN_PROMPTS",
      "JSON_RPC_ERROR_CODES",
      "PROTOCOL_VERSION",
      "REPLY_SCHEMAS",
      "RPC_METHODS",
      "RpcError",
      "askUserParamsSchema",
      "askUserResultSchema",
      "clientCapabilitiesSchema",
      "createRpcPromptBackend",
      "createRpcPromptClient",
      "deliverReplySchema",
      "initializeParamsSchema",
      "initializeResultSchema",
      "permissionReplySchema",
      "promptParamsSchema",
      "promptRequestSchema",
      "questionReplySchema",
    ]);
  });

  it("names the protocol's methods and codes", async () => {
    const api = await import("../src/index.js");
    expect(api.RPC_METHODS).toEqual({
      initialize: "initialize",
      prompt: "client/prompt",
      askUser: "client/ask_user",
      cancelRequest: "$/cancelRequest",
    });
    expect(api.JSON_RPC_ERROR_CODES).toEqual({
      parse_error: -32700,
      invalid_request: -32600,
      method_not_found: -32601,
      invalid_params: -32602,
      internal_error: -32603,
      request_cancelled: -32800,
      too_many_prompts: -32000,
    });
    expect(api.PROTOCOL_VERSION).toBe(1);
    expect(api.DEFAULT_MAX_LINE_BYTES).toBe(1024 * 1024);
    expect(api.DEFAULT_MAX_OPEN_PROMPTS).toBe(32);
  });

  it("recognises its errors across package copies by brand, not by class identity", async () => {
    const { RpcError } = await import("../src/index.js");
    const error = new RpcError("timeout", "slow", { code: -1 });
    expect(RpcError.isInstance(error)).toBe(true);
    expect(RpcError.isInstance({ [Symbol.for("@jp/rpc/RpcError")]: true })).toBe(true);
    expect(RpcError.isInstance(new Error("x"))).toBe(false);
    expect(error).toMatchObject({ name: "RpcError", kind: "timeout", code: -1 });
  });
});

describe("types", () => {
  it("the reply schemas produce the coordinator's reply types", () => {
    expectTypeOf<z.infer<typeof questionReplySchema>>().toExtend<QuestionReply>();
    expectTypeOf<z.infer<typeof permissionReplySchema>>().toExtend<PermissionReply>();
    expectTypeOf<z.infer<typeof deliverReplySchema>>().toExtend<DeliverReply>();
    expectTypeOf<PromptReply>().toEqualTypeOf<QuestionReply | PermissionReply | DeliverReply>();
  });

  it("the backend is a PromptBackend and client/prompt carries the request as it is", () => {
    expectTypeOf<RpcPromptBackend>().toExtend<PromptBackend>();
    expectTypeOf<PromptParams["prompt"]>().toEqualTypeOf<PromptRequest>();
    expectTypeOf<PromptParams["session_id"]>().toEqualTypeOf<string>();
  });
});
