// A small MCP server written with the official SDK alone, as any third-party server would be. It
// books tables at a made-up restaurant and asks the person two ways:
//
// - `book_table` pushes an `elicitation/create` form while its call is in flight (the 2025
//   protocol revisions);
// - `pay_deposit` answers with an input-required result (2026-07-28): the client asks, then calls
//   the tool again with the answer and the `requestState` the server gave it.
//
// Each result says what the server was told, including who decided (the `_meta` the SDK's host
// side adds), so the example shows a decline by policy reading differently from a person's.
//
// Run by the example over stdio: node --import tsx src/bistro-server.ts
import {
  type CallToolResult,
  type ElicitResult,
  fromJsonSchema,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  McpServer,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

const RESTAURANT = "Bistro Nord";
const DEPOSIT = "€20";

const text = (value: string, isError = false): CallToolResult => ({
  content: [{ type: "text", text: value }],
  ...(isError ? { isError } : {}),
});

/** What the server was told, on its stderr (the example shows it): a server's own log. */
const log = (line: string) => process.stderr.write(`[bistro server] ${line}\n`);

/** Who decided, as the client said in `_meta` (absent when a client does not say). */
function decidedBy(meta: unknown): string {
  const decision = (meta as Record<string, unknown> | undefined)?.["jp.inquiry/decision"];
  if (typeof decision !== "object" || decision === null) return "";
  const { by, reason } = decision as { by?: unknown; reason?: unknown };
  const why = typeof reason === "string" ? `, ${reason}` : "";
  return typeof by === "string" ? ` (decided by the ${by}${why})` : "";
}

const bookArgs = fromJsonSchema<{ date?: string; guests?: number }>({
  type: "object",
  properties: { date: { type: "string" }, guests: { type: "integer", minimum: 1 } },
});

async function bookTable(
  args: { date?: string; guests?: number },
  ctx: ServerContext,
): Promise<CallToolResult> {
  const date = args.date ?? "Friday";
  const guests = args.guests ?? 2;
  const reply: ElicitResult = await ctx.mcpReq.elicitInput(
    {
      mode: "form",
      message: `${RESTAURANT} has a table for ${guests} on ${date}. Whose name is the booking under?`,
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", title: "Name for the booking" },
          seating: {
            type: "string",
            title: "Where would you like to sit?",
            oneOf: [
              { const: "indoor", title: "Indoors" },
              { const: "terrace", title: "On the terrace" },
            ],
            default: "indoor",
          },
          high_chair: { type: "boolean", title: "Do you need a high chair?", default: false },
        },
        required: ["name", "seating"],
      },
    },
    // A person answers this: the SDK's 60-second default is too short.
    { timeout: 10 * 60_000 },
  );
  log(`book_table was told: ${reply.action}${decidedBy(reply._meta)}`);
  if (reply.action !== "accept" || reply.content === undefined) {
    return text(`No table booked: the client answered ${reply.action}${decidedBy(reply._meta)}.`);
  }
  const {
    name,
    seating,
    high_chair: highChair,
  } = reply.content as {
    name?: unknown;
    seating?: unknown;
    high_chair?: unknown;
  };
  const where = seating === "terrace" ? "on the terrace" : "indoors";
  const chair = highChair === true ? ", with a high chair" : "";
  return text(
    `Booked a table for ${guests} on ${date} ${where}${chair}, under ${String(name)}. Reference B-1042.`,
  );
}

const depositArgs = fromJsonSchema<{ reference?: string }>({
  type: "object",
  properties: { reference: { type: "string" } },
  required: ["reference"],
});

async function payDeposit(
  args: { reference?: string },
  ctx: ServerContext,
): Promise<CallToolResult | InputRequiredResult> {
  const answer = inputResponse(ctx.mcpReq.inputResponses, "deposit");
  if (answer.kind === "missing") {
    // Nothing is kept here between the rounds: the booking travels in requestState.
    return inputRequired({
      inputRequests: {
        deposit: inputRequired.elicit({
          message: `${RESTAURANT} holds the table with a ${DEPOSIT} deposit. Pay it with the card on file?`,
          requestedSchema: { type: "object", properties: {} } as never,
        }),
      },
      requestState: `deposit:${args.reference ?? ""}`,
    });
  }
  const reference = (ctx.mcpReq.requestState<string>() ?? "").replace(/^deposit:/, "");
  const meta = (ctx.mcpReq.inputResponses?.deposit as { _meta?: unknown } | undefined)?._meta;
  const told = answer.kind === "elicit" ? answer.action : answer.kind;
  log(
    `pay_deposit was retried with: ${told}${decidedBy(meta)} (booking ${reference}, from requestState)`,
  );
  if (answer.kind !== "elicit" || answer.action !== "accept") {
    return text(
      `No deposit paid for ${reference}: the client answered ${told}${decidedBy(meta)}. The table is held until 18:00.`,
    );
  }
  return text(`Paid the ${DEPOSIT} deposit for ${reference}${decidedBy(meta)}.`);
}

/** The server for one connection; the SDK negotiates the protocol revision per connection. */
export function createBistroServer(): McpServer {
  const server = new McpServer({ name: "bistro", version: "1.0.0" });
  server.registerTool(
    "book_table",
    { description: `Books a table at ${RESTAURANT}.`, inputSchema: bookArgs },
    bookTable,
  );
  server.registerTool(
    "pay_deposit",
    { description: "Pays the deposit that holds a booking.", inputSchema: depositArgs },
    payDeposit,
  );
  return server;
}

serveStdio(() => createBistroServer());
