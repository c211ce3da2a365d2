import type { InquirySource, JsonValue } from "@jp/conversation";
import type { BuiltinOutcome, BuiltinTool, BuiltinToolInput } from "@jp/coordinator";
import { failure, success, validateAnswer } from "@jp/tool";
import type { Result } from "neverthrow";
import { askUserConfig } from "../builtin-configs.js";
import { type AskUserRequest, parseAskUserArguments, SINGLE_QUESTION_ID } from "./arguments.js";
import { formDefaultsNote, singleDefaultNote } from "./defaults-note.js";
import { FormWalk } from "./walk.js";

/** The generic second-pass failure of RFD 083: an answer that does not fit reached the tool. */
export const MISMATCHED_ANSWER =
  "ask_user: the accumulated answer does not match the requested answer type.";

const invalidArguments = (problem: string) =>
  failure(`ask_user: invalid arguments: ${problem}. Fix the arguments and call ask_user again.`);

/**
 * The `ask_user` built-in: the assistant asks the human mid-turn. One question (`question`)
 * returns `{"answer_type", "answer"}`; a form (`questions`) returns `{id: answer}` with skipped
 * questions `null`. Its questions are human-only and never remembered, and they are recorded
 * as the assistant's own (`{"source":"assistant"}`).
 *
 * @example
 * const executors = builtinExecutorSource({ ask_user: askUser });
 */
export const askUser: BuiltinTool = {
  // Its registered configuration travels with it: a coordinator built by hand, without
  // `builtinToolConfigs()`, still runs it without a permission prompt.
  config: askUserConfig(),
  inquirySource(): InquirySource {
    return { source: "assistant" };
  },
  execute({ arguments: args, answers, answeredByDefault }: BuiltinToolInput): BuiltinOutcome {
    const { request, walk } = parsed(args);
    if (request.isErr()) return invalidArguments(request.error);
    const byDefault = answeredByDefault ?? NONE;
    return request.value.shape === "single"
      ? single(request.value, answers, byDefault)
      : form(walk as FormWalk, answers, byDefault);
  },
};

/** A call's arguments, checked, and the walk of its form. */
interface Parsed {
  readonly request: Result<AskUserRequest, string>;
  readonly walk: FormWalk | undefined;
}

// The coordinator runs the tool again after every answer with the same arguments object (the
// recorded call's), so they are checked once per call, and the form's walk goes on from where it
// stood: a pass costs the same at the thousandth question as at the first. Arguments are
// treated as immutable, as the recorded call they come from is.
const parsedArguments = new WeakMap<object, Parsed>();

function parsed(args: BuiltinToolInput["arguments"]): Parsed {
  const known = parsedArguments.get(args);
  if (known !== undefined) return known;
  const request = parseAskUserArguments(args);
  const walk =
    request.isOk() && request.value.shape === "form"
      ? new FormWalk(request.value.questions)
      : undefined;
  const fresh = { request, walk };
  // Only objects can key the cache; anything else is refused by the parse anyway.
  if (typeof args === "object" && args !== null) parsedArguments.set(args, fresh);
  return fresh;
}

const NONE: ReadonlySet<string> = new Set();

function single(
  request: Extract<AskUserRequest, { shape: "single" }>,
  answers: BuiltinToolInput["answers"],
  byDefault: ReadonlySet<string>,
) {
  const { question } = request;
  const answer = answers[SINGLE_QUESTION_ID];
  // A single question is a form of one: the same prompt, with Reply and End Turn, no progress.
  if (answer === undefined)
    return { type: "needs_input", question, form: { index: 1, total: 1 } } as const;
  if (validateAnswer(question.answer_type, answer).isErr()) return failure(MISMATCHED_ANSWER);
  const body = { answer_type: question.answer_type.type, answer };
  // Nobody answered: the model must not tell the person they chose it.
  if (!byDefault.has(SINGLE_QUESTION_ID)) return success(JSON.stringify(body));
  return success(
    JSON.stringify({ ...body, answered_by: "default", note: singleDefaultNote(answer) }),
  );
}

function form(
  walk: FormWalk,
  answers: BuiltinToolInput["answers"],
  byDefault: ReadonlySet<string>,
) {
  const state = walk.next(answers);
  switch (state.type) {
    case "ask":
      return { type: "needs_input", question: state.question, form: state.form } as const;
    case "invalid":
      return failure(MISMATCHED_ANSWER);
    case "done": {
      const defaulted = walk.answeredAmong(byDefault);
      if (defaulted.length === 0) return success(JSON.stringify(state.answers));
      // Question ids are the model's, so the form's answers move under `answers`, beside the ids
      // nobody answered and a note that says so.
      return success(
        JSON.stringify({
          answers: state.answers,
          answered_by_default: defaulted,
          note: formDefaultsNote(defaulted.map((id) => [id, state.answers[id] as JsonValue])),
        }),
      );
    }
  }
}
