import { type BuiltinTool, builtinExecutor, type PromptBackend, TurnState } from "@jp/coordinator";
import type { Question } from "@jp/tool";
import { describe, expect, it } from "vitest";
import { createMcpToolServer, type SecretPage } from "../../src/index.js";
import { attachedCoordinator, servedInProcess } from "../support.js";

const SECRET = "sk-LIVE-0123456789";
const MASK = "[redacted secret]";

/** What the tool does once it holds the secret. */
type After = (token: string) => ReturnType<BuiltinTool["execute"]>;

function tool(after: After): BuiltinTool {
  return {
    execute({ answers }) {
      const token = answers.token;
      if (typeof token !== "string") {
        return {
          type: "needs_input",
          question: { id: "token", text: "Your API token?", answer_type: { type: "secret" } },
        };
      }
      return after(token);
    },
  };
}

const page: SecretPage = {
  async begin() {
    return { url: "https://secrets.example.com/enter", answer: Promise.resolve(SECRET) };
  },
};

// Opens the page, accepts every form, answers every field with "mine".
const person: PromptBackend = {
  isHumanReachable: () => true,
  ask: async (request) => {
    if (request.kind !== "question") return { type: "approve" } as never;
    const { options } = request.question.answer_type as { options?: unknown[] };
    const value = options?.includes("open")
      ? "open"
      : options?.includes("accept")
        ? "accept"
        : "mine";
    return { type: "answer", value } as never;
  },
};

async function served(era: "2025-11-25" | "2026-07-28", after: After) {
  const factory = createMcpToolServer({
    name: "keys",
    version: "1",
    tools: { login: { description: "logs in", executor: builtinExecutor("login", tool(after)) } },
    secretPage: page,
  });
  const { connection, close } = await servedInProcess(era, factory, { openUrl: () => {} });
  try {
    const { stream, coordinator } = attachedCoordinator(connection, { prompts: person });
    const { responses } = await coordinator.run([{ id: "c1", name: "login", arguments: {} }], {
      turn: new TurnState(),
    });
    return { response: responses[0], recorded: JSON.stringify(stream.toJSON()), stream };
  } finally {
    await close();
  }
}

const failing = `401 from api.example.com: token ${SECRET} rejected`;
const followUp = (question: Omit<Question, "id">) => (token: string) =>
  ({
    type: "needs_input",
    question: { id: "label", ...question, text: question.text.replace("$T", token) },
  }) as ReturnType<BuiltinTool["execute"]>;

describe.each(["2025-11-25", "2026-07-28"] as const)("on %s", (era) => {
  it("a failure that quotes the secret reaches the client masked", async () => {
    const { response, recorded } = await served(era, () => ({
      type: "error",
      message: failing,
      trace: [],
      transient: false,
    }));
    expect(response?.is_error).toBe(true);
    expect(response?.content).toContain(`token ${MASK} rejected`);
    expect(recorded).not.toContain(SECRET);
  });

  it("an exception that quotes the secret reaches the client masked", async () => {
    const { response, recorded } = await served(era, () => {
      throw new Error(failing);
    });
    expect(response?.is_error).toBe(true);
    expect(response?.content).toContain(`token ${MASK} rejected`);
    expect(recorded).not.toContain(SECRET);
  });

  it("a later question that quotes the secret in its text and default is asked masked", async () => {
    const { response, recorded, stream } = await served(era, (token) =>
      followUp({ text: "Label for key $T?", answer_type: { type: "text" }, default: token })(token),
    );
    // The label question stops the run here only once answered; what it showed is recorded.
    const asked = stream.events.flatMap((e) =>
      e.type === "inquiry_request" ? [JSON.stringify(e.question)] : [],
    );
    expect(asked.some((q) => q.includes(`Label for key ${MASK}?`))).toBe(true);
    expect(recorded).not.toContain(SECRET);
    expect(response).toBeDefined();
  });

  it("a later question that quotes the secret in its options is not asked: the tool fails saying where", async () => {
    const { response, recorded } = await served(era, (token) =>
      followUp({
        text: "Which?",
        answer_type: { type: "select", options: [`store ${token}`, "discard"] },
      })(token),
    );
    expect(response?.is_error).toBe(true);
    expect(response?.content).toContain(
      'its question "label" quotes a secret answer in its options, where it cannot be hidden',
    );
    expect(recorded).not.toContain(SECRET);
  });
});
