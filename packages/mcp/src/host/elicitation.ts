import type { JsonObject, JsonValue } from "@jp/conversation";
import type { Answers, FormProgress } from "@jp/coordinator";
import type { Question } from "@jp/tool";
import { err, ok, type Result } from "neverthrow";
import { type DecidedBy, decisionMeta } from "../decision.js";
import type { UnsupportedElicitation } from "../errors.js";
import { describeValue, isPlainObject } from "../internal/json.js";
import {
  type FormField,
  fieldContent,
  MAX_TEXT_LENGTH,
  overLength,
  questionsForElicitation,
} from "./form-questions.js";
import { type CheckedUrl, checkElicitationUrl } from "./url-check.js";

/** The options of the question that opens every elicitation: go on, or decline. */
export const FORM_CHOICES = ["accept", "decline"] as const;
/** The options of the consent question of a URL elicitation. */
export const URL_CHOICES = ["open", "decline"] as const;

/** The base ids of the questions that open a form and a URL elicitation. */
export const FORM_GATE_ID = "respond";
export const URL_GATE_ID = "open_url";

/** What an elicitation result sent to the server looks like. */
export interface ElicitResponse {
  readonly action: "accept" | "decline" | "cancel";
  readonly content?: JsonObject;
  readonly _meta?: JsonObject;
}

// An id that needs no cleaning: the common case, tested without building a new string.
const PLAIN_ID = /^[A-Za-z0-9_-]{1,64}$/;

// What a field's id is kept with: an answer typed into a field (say "open") is never the
// consent of an opening question that takes its id when the tool runs again.
const FIELD_TERMS = "field";

/**
 * Hands out question ids unique within one tool call: a field keeps its name when it can (so a
 * host can configure `questions.<name>`), later uses of the same name get `_2`, `_3`, ….
 *
 * The question that opens an elicitation also names what its answer agrees to (`urlTerms`,
 * `formTerms`): a recorded "open" or "accept" answers only an opening question that asks the
 * same. A tool run again after a restart may ask something else first; its opening question then
 * takes the next free id and is asked, never answered by a consent given to another page. Field
 * ids are kept as fields' (`field`), so neither kind of question ever takes the other's answer.
 */
export class QuestionIds {
  readonly #used: Set<string>;
  readonly #spent = new Set<string>();
  // What each question handed out in this call (or recorded before a restart) asked: an opening
  // question its terms, a field FIELD_TERMS.
  readonly #gates: Map<string, string>;
  // Per base and terms, the suffix the last id handed out had: every id below it is taken, or
  // asked otherwise, for good (ids are only ever added), so a call that asks the same field many
  // times does not try each earlier suffix again.
  readonly #lastSuffix = new Map<string, number>();

  /**
   * Ids handed out before, e.g. by the process that asked a call's earlier questions, and what
   * the opening questions among them asked.
   */
  constructor(
    used: readonly string[] = [],
    gates: Readonly<Record<string, string>> = {},
    spent: readonly string[] = [],
  ) {
    this.#used = new Set([...used, ...spent]);
    this.#gates = new Map(Object.entries(gates));
    this.spend(spent);
  }

  /** The ids handed out so far, in order. */
  list(): string[] {
    return [...this.#used];
  }

  /**
   * Ids whose answers are used up: a round of pages whose tool call was sent again. Kept with
   * a suspended call and handed back as ids taken before, so the tool run again after a restart
   * asks anew where the server asks for its pages again, instead of replaying those answers.
   */
  spend(ids: readonly string[]): void {
    for (const id of ids) this.#spent.add(id);
  }

  /** The ids {@link spend} used up, in order. */
  spent(): string[] {
    return [...this.#spent];
  }

  /** What each opening question asked, by id: kept with a suspended call. */
  gates(): Record<string, string> {
    // fromEntries defines own properties: an id "__proto__" stays an entry.
    return Object.fromEntries(this.#gates);
  }

  /** An id for a form's field: never one an opening question took, in this run or before. */
  take(base: string): string {
    return this.#take(base, FIELD_TERMS);
  }

  /** An id for an opening question that asks `terms`: never one taken by other terms. */
  takeGate(base: string, terms: string): string {
    return this.#take(base, terms);
  }

  #take(base: string, terms: string): string {
    const clean = PLAIN_ID.test(base)
      ? base
      : base.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64) || "field";
    const key = `${terms}\n${clean}`;
    // Suffix 1 stands for the base itself: `name`, then `name_2`, `name_3`, ….
    let n = this.#lastSuffix.get(key) ?? 1;
    let id = n === 1 ? clean : `${clean}_${n}`;
    while (this.#used.has(id) || this.#askedOtherwise(id, terms)) {
      n++;
      id = `${clean}_${n}`;
    }
    this.#lastSuffix.set(key, n);
    this.#used.add(id);
    this.#gates.set(id, terms);
    return id;
  }

  #askedOtherwise(id: string, terms: string): boolean {
    const asked = this.#gates.get(id);
    return asked !== undefined && asked !== terms;
  }
}

// What consenting to an elicitation agrees to (see QuestionIds): for a URL, opening a page on its
// origin, which is what the question names ("a page on <host>"); for a form, sending its fields,
// by name. A message that changes from one run of the tool to the next does not make it another
// question.
function urlTerms(url: CheckedUrl): string {
  return `url ${new URL(url.href).origin}`;
}

function formTerms(fields: readonly FormField[]): string {
  return `form ${JSON.stringify(fields.map(({ name }) => name).sort())}`;
}

/** Who is asking, for the texts the person reads. */
export interface Asker {
  /** The name the host gave the server. */
  readonly server: string;
  /** The tool whose call the server asks in. */
  readonly tool: string;
}

type FormPlan = {
  readonly mode: "form";
  readonly gate: Question;
  /** Each field with its id and the question that asks it (the field's question with the id). */
  readonly fields: readonly {
    readonly id: string;
    readonly field: FormField;
    readonly question: Question;
  }[];
};
type UrlPlan = { readonly mode: "url"; readonly gate: Question; readonly url: CheckedUrl };

/** One elicitation, mapped onto the questions that ask it. */
export type ElicitationPlan = FormPlan | UrlPlan;

/** The next thing to do for an elicitation, given the answers collected so far. */
export type ElicitationStep =
  | { readonly type: "ask"; readonly question: Question; readonly form: FormProgress }
  | {
      readonly type: "respond";
      readonly response: ElicitResponse;
      /** A URL the person consented to open. */
      readonly open?: string;
    };

/**
 * Maps one `elicitation/create` request's params onto questions: an opening question (accept or
 * decline; for a URL, open or decline, with the URL's host) and, for a form, one question per
 * field. Ids come from `ids`, so they stay unique within the call. Never throws.
 */
export function planElicitation(
  params: unknown,
  asker: Asker,
  ids: QuestionIds,
): Result<ElicitationPlan, UnsupportedElicitation> {
  if (!isPlainObject(params)) {
    return err({ kind: "unsupported-schema", message: "the elicitation has no params" });
  }
  const message = typeof params.message === "string" ? params.message : "";
  const long = overLength(message, MAX_TEXT_LENGTH);
  if (long !== undefined)
    return err({ kind: "too-large", message: `the elicitation message ${long}` });
  if (params.mode === "url") {
    const url = checkElicitationUrl(params.url);
    if (url.isErr()) return err(url.error);
    return ok({
      mode: "url",
      gate: urlGate(ids.takeGate(URL_GATE_ID, urlTerms(url.value)), message, asker, url.value),
      url: url.value,
    });
  }
  if (params.mode !== undefined && params.mode !== "form") {
    return err({
      kind: "unsupported-schema",
      message: `unknown elicitation mode ${describeValue(params.mode)}`,
    });
  }
  const fields = questionsForElicitation(params.requestedSchema, { server: asker.server });
  if (fields.isErr()) return err(fields.error);
  const gate = formGate(
    ids.takeGate(FORM_GATE_ID, formTerms(fields.value)),
    message,
    asker,
    fields.value,
  );
  return ok({
    mode: "form",
    gate,
    fields: fields.value.map((field) => {
      const id = ids.take(field.name);
      return { id, field, question: { id, ...field.question } };
    }),
  });
}

function formGate(
  id: string,
  message: string,
  asker: Asker,
  fields: readonly FormField[],
): Question {
  const count = fields.length === 1 ? "1 question" : `${fields.length} questions`;
  const next = fields.length === 0 ? "" : ` Accept to answer ${count}, or decline.`;
  return {
    id,
    text: message === "" ? "The server asks for your input." : message,
    context: `MCP server "${asker.server}" asks this while running its tool "${asker.tool}".${next}`,
    answer_type: { type: "select", options: [...FORM_CHOICES] },
    exclusive: true,
    persistence: "none",
  };
}

function urlGate(id: string, message: string, asker: Asker, url: CheckedUrl): Question {
  const lines = [
    `MCP server "${asker.server}" (tool "${asker.tool}") asks you to open a page on ${url.host}`,
    `URL: ${url.href}`,
    ...url.warnings.map((warning) => `Warning: ${warning}`),
    "Nothing is opened unless you choose open.",
  ];
  return {
    id,
    text: message === "" ? `Open a page on ${url.host}?` : message,
    context: lines.join("\n"),
    answer_type: { type: "select", options: [...URL_CHOICES] },
    exclusive: true,
    persistence: "none",
  };
}

/**
 * The next step of an elicitation: the first unanswered question (the opening one first), or the
 * response once the person declined or every field is answered. `prompted` names the question
 * ids a person answered at a prompt, so the response says who decided.
 */
export function stepElicitation(
  plan: ElicitationPlan,
  answers: Answers,
  prompted: ReadonlySet<string>,
): ElicitationStep {
  const total = plan.mode === "form" ? plan.fields.length + 1 : 1;
  const gate = answerOf(answers, plan.gate.id);
  if (gate === undefined) return { type: "ask", question: plan.gate, form: { index: 1, total } };
  const by: DecidedBy = prompted.has(plan.gate.id) ? "person" : "host";
  if (gate === "decline") {
    return { type: "respond", response: { action: "decline", _meta: decisionMeta(by) } };
  }
  if (plan.mode === "url") {
    return {
      type: "respond",
      response: { action: "accept", _meta: decisionMeta(by) },
      open: plan.url.href,
    };
  }
  const { fields } = plan;
  const entries: [string, JsonValue][] = [];
  for (let i = 0; i < fields.length; i++) {
    const { id, field, question } = fields[i] as FormPlan["fields"][number];
    const answer = answerOf(answers, id);
    if (answer === undefined) return { type: "ask", question, form: { index: i + 2, total } };
    const value = fieldContent(field, answer);
    if (value !== undefined) entries.push([field.name, value]);
  }
  return {
    type: "respond",
    response: {
      action: "accept",
      // fromEntries defines own properties, so a field named "__proto__" stays a field.
      content: Object.fromEntries(entries),
      _meta: decisionMeta(by),
    },
  };
}

/** The question ids of a plan, the opening question first. */
export function planIds(plan: ElicitationPlan): readonly string[] {
  return plan.mode === "form" ? [plan.gate.id, ...plan.fields.map(({ id }) => id)] : [plan.gate.id];
}

// Reads without `Object.hasOwn` on every id: the coordinator's answers are a proxy, where an
// own-property check costs far more than a read. A JSON answer is never a function, so a function
// read is Object.prototype's; `__proto__` is the one inherited non-function to rule out.
function answerOf(answers: Answers, id: string): JsonValue | undefined {
  const value = answers[id];
  if (value === undefined || typeof value === "function") return undefined;
  return id === "__proto__" && !Object.hasOwn(answers, id) ? undefined : value;
}
