import type { DeliverReply, PermissionReply, PromptRequest, QuestionReply } from "@jp/coordinator";
import { z } from "zod";

// The wire shapes of the protocol, as zod schemas; every type below is inferred from them. The
// prompt requests and replies themselves are the coordinator's types, carried as they are.

/** The version of this protocol; `initialize` carries it both ways. */
export const PROTOCOL_VERSION = 1;

/** The method names of the protocol. `client/*` methods are served by the client. */
export const RPC_METHODS = {
  /** client → server request: the client announces itself and its capabilities. */
  initialize: "initialize",
  /** server → client request: a full typed prompt, for clients that announced `rich`. */
  prompt: "client/prompt",
  /** server → client request: Opal's question-with-choices, for clients that announced `simple`. */
  askUser: "client/ask_user",
  /** notification, either way: stop working on the request with this id (LSP's name). */
  cancelRequest: "$/cancelRequest",
} as const;

/** Any prompt reply: the union of the coordinator's three reply types. */
export type PromptReply = QuestionReply | PermissionReply | DeliverReply;

type JsonValue = Extract<QuestionReply, { type: "answer" }>["value"];
type JsonObject = Extract<PermissionReply, { type: "edit" }>["arguments"];

// A value that came out of JSON.parse is JSON by construction: only its presence needs checking.
const jsonValue = z.custom<JsonValue>((value) => value !== undefined, "expected a JSON value");
const jsonObject = z.custom<JsonObject>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "expected a JSON object",
);

/** What a client can show: `rich` takes `client/prompt`, `simple` takes `client/ask_user`. */
export const clientCapabilitiesSchema = z.object({ prompts: z.enum(["rich", "simple"]) });

/** A client's capabilities, announced in `initialize`. */
export type ClientCapabilities = z.infer<typeof clientCapabilitiesSchema>;

const peerInfoSchema = z.object({ name: z.string(), version: z.string().exactOptional() });

/** The params of `initialize` (client → server). */
export const initializeParamsSchema = z.object({
  protocol_version: z.number().int(),
  capabilities: clientCapabilitiesSchema,
  client_info: peerInfoSchema.exactOptional(),
});

/** The params of `initialize`: what the server knows of its client. */
export type InitializeParams = z.infer<typeof initializeParamsSchema>;

/** The result of `initialize` (server → client). */
export const initializeResultSchema = z.object({
  protocol_version: z.number().int(),
  session_id: z.string(),
  server_info: peerInfoSchema,
});

/** The result of `initialize`: the session the client is now attached to. */
export type InitializeResult = z.infer<typeof initializeResultSchema>;

/** The params of `client/ask_user`, exactly Opal's: `choices` is absent for a free-text answer. */
export const askUserParamsSchema = z.object({
  session_id: z.string(),
  question: z.string(),
  choices: z.array(z.string()).exactOptional(),
});

/** The params of `client/ask_user`. */
export type AskUserParams = z.infer<typeof askUserParamsSchema>;

/** The result of `client/ask_user`. */
export const askUserResultSchema = z.object({ answer: z.string() });

/** The result of `client/ask_user`: the user's response text. */
export type AskUserResult = z.infer<typeof askUserResultSchema>;

const controlsSchema = z.object({
  remember: z.boolean(),
  back: z.boolean(),
  reply: z.boolean(),
  end_turn: z.boolean(),
});

const common = { tool_name: z.string(), tool_call_id: z.string() };

// Checks the fields a client relies on and keeps unknown ones (`loose`), so that a newer server
// may add fields. The type is the coordinator's `PromptRequest`, declared there once.
const promptRequestShape = z.discriminatedUnion("kind", [
  z
    .object({
      kind: z.literal("question"),
      ...common,
      inquiry_id: z.string(),
      question: z
        .object({
          id: z.string(),
          text: z.string(),
          answer_type: z.object({ type: z.string() }).loose(),
        })
        .loose(),
      controls: controlsSchema,
      prompt_label: z.string().exactOptional(),
      progress: z.object({ index: z.number(), total: z.number() }).exactOptional(),
      error: z.string().exactOptional(),
    })
    .loose(),
  z
    .object({
      kind: z.literal("permission"),
      ...common,
      tool_source: z.string().exactOptional(),
      arguments: jsonObject,
      mode: z.enum(["ask", "edit"]),
    })
    .loose(),
  z
    .object({
      kind: z.literal("deliver"),
      ...common,
      content: z.string(),
      is_error: z.boolean(),
      mode: z.enum(["ask", "edit"]),
    })
    .loose(),
]);

/** The zod schema of a prompt request as a client receives it. */
export const promptRequestSchema = promptRequestShape as unknown as z.ZodType<PromptRequest>;

/** The params of `client/prompt`: the session and the coordinator's prompt request as it is. */
export const promptParamsSchema = z.object({ session_id: z.string(), prompt: promptRequestSchema });

/** The params of `client/prompt`. */
export type PromptParams = z.infer<typeof promptParamsSchema>;

/** The zod schema of a {@link QuestionReply}, the result of `client/prompt` for a question. */
export const questionReplySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("answer"), value: jsonValue, remember: z.boolean().exactOptional() }),
  z.object({ type: z.literal("back") }),
  z.object({ type: z.literal("reply"), message: z.string().exactOptional() }),
  z.object({ type: z.literal("end_turn") }),
  z.object({ type: z.literal("cancelled") }),
]);

/** The zod schema of a {@link PermissionReply}, the result of `client/prompt` for a permission. */
export const permissionReplySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("run"), remember: z.boolean().exactOptional() }),
  z.object({
    type: z.literal("skip"),
    reason: z.string().exactOptional(),
    remember: z.boolean().exactOptional(),
  }),
  z.object({ type: z.literal("edit"), arguments: jsonObject }),
  z.object({ type: z.literal("cancelled") }),
]);

/** The zod schema of a {@link DeliverReply}, the result of `client/prompt` for a delivery. */
export const deliverReplySchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("deliver") }),
  z.object({ type: z.literal("skip") }),
  z.object({ type: z.literal("edit"), content: z.string() }),
  z.object({ type: z.literal("cancelled") }),
]);

/** The reply schema per prompt kind: a rich client's result is checked against its row. */
export const REPLY_SCHEMAS = {
  question: questionReplySchema,
  permission: permissionReplySchema,
  deliver: deliverReplySchema,
} as const satisfies Record<PromptRequest["kind"], z.ZodType<PromptReply>>;

/** The params of `$/cancelRequest`: the id of the request to give up. */
export const cancelParamsSchema = z.object({ id: z.union([z.string(), z.number()]) });

/** Formats zod issues as `path: message; …` for error texts (`(root)` for the value itself). */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map(
      (issue) => `${issue.path.length === 0 ? "(root)" : issue.path.join(".")}: ${issue.message}`,
    )
    .join("; ");
}
