import type { ConversationStream, JsonObject } from "@jp/conversation";

/** What the assistant does in one cycle: say something, and maybe call tools. */
export interface AssistantStep {
  readonly message: string;
  readonly calls: readonly {
    readonly id: string;
    readonly name: string;
    readonly arguments: JsonObject;
  }[];
}

/**
 * A deterministic stand-in for a model, so the demo needs no API key. It is NOT an LLM: it
 * follows a fixed script and reads the tool results the coordinator recorded to choose the
 * next step. `docs/production.md` shows where a real model client goes instead.
 */
export class ScriptedAssistant {
  next(stream: ConversationStream): AssistantStep {
    // Where the script stands is read from the conversation, so another process can go on.
    const cycle = repliesThisTurn(stream);
    if (cycle === 0) return this.#askReleaseDetails();
    if (cycle === 1) return this.#publish(lastResult(stream, "call_form"));
    return this.#summarize(lastResult(stream, "call_publish"));
  }

  #askReleaseDetails(): AssistantStep {
    return {
      message: "Before I publish, I need a few decisions from you.",
      calls: [
        {
          id: "call_form",
          name: "ask_user",
          arguments: {
            questions: [
              {
                id: "bump",
                text: "Which version bump is this release?",
                answer_type: "select",
                options: ["patch", "minor", "major"],
                default: "minor",
              },
              {
                id: "changelog",
                text: "Add a changelog entry?",
                answer_type: "boolean",
                default: true,
              },
              {
                id: "entry",
                text: "The changelog entry, one line",
                answer_type: "text",
                when: { question_id: "changelog", equals: true },
              },
              {
                id: "sections",
                text: "Which changelog sections does it go under?",
                answer_type: "multi_select",
                options: ["Added", "Changed", "Fixed", "Security"],
                when: { question_id: "changelog", equals: true },
              },
            ],
          },
        },
      ],
    };
  }

  #publish(result: { content: string; is_error: boolean } | undefined): AssistantStep {
    const answers = parse(result?.content);
    if (result?.is_error === true) {
      // Without answers the script still tries the safest release, to show what a detached
      // run does with a tool that needs permission.
      return {
        message: "I could not ask you, so I will try a patch release without a changelog entry.",
        calls: [
          {
            id: "call_publish",
            name: "publish_package",
            arguments: { name: "widgets", version: "1.2.4" },
          },
        ],
      };
    }
    if (result === undefined || answers === undefined || answers.cancelled === true) {
      // A Reply carries the person's words: a real model would read them; the script quotes them.
      const said = typeof answers?.message === "string" ? ` You said: "${answers.message}"` : "";
      return { message: `Understood: I did not publish anything.${said}`, calls: [] };
    }
    const version =
      { patch: "1.2.4", minor: "1.3.0", major: "2.0.0" }[String(answers.bump)] ?? "1.3.0";
    const sections = Array.isArray(answers.sections) ? answers.sections.map(String) : [];
    const under = sections.length > 0 ? ` under ${sections.join(", ")}` : "";
    return {
      message: `Publishing widgets ${version}${answers.entry ? ` with the entry "${String(answers.entry)}"${under}` : ""}.`,
      calls: [
        { id: "call_publish", name: "publish_package", arguments: { name: "widgets", version } },
      ],
    };
  }

  #summarize(result: { content: string; is_error: boolean } | undefined): AssistantStep {
    // "Done." only for a release that happened: a skipped call or a cancelled prompt is not one.
    if (result === undefined)
      return { message: "I did not get a result: nothing was published.", calls: [] };
    if (result.is_error) return { message: `Publishing failed: ${result.content}`, calls: [] };
    if (result.content.startsWith("Published "))
      return { message: `Done. ${result.content}`, calls: [] };
    return { message: `Nothing was published: ${result.content}`, calls: [] };
  }
}

function repliesThisTurn(stream: ConversationStream): number {
  let replies = 0;
  for (let i = stream.events.length - 1; i >= 0; i--) {
    const event = stream.events[i];
    if (event?.type === "turn_start") break;
    if (event?.type === "chat_response") replies++;
  }
  return replies;
}

function lastResult(stream: ConversationStream, id: string) {
  for (let i = stream.events.length - 1; i >= 0; i--) {
    const event = stream.events[i];
    if (event?.type === "tool_call_response" && event.id === id) {
      return { content: String(event.content), is_error: event.is_error === true };
    }
  }
  return undefined;
}

function parse(content: string | undefined): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(content ?? "");
    return typeof value === "object" && value !== null
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
