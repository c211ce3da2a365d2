import type { JsonValue } from "@jp/conversation";

/**
 * What the coordinator remembers during one turn. Build a new one per turn: remembered answers
 * and decisions, and the inquiry attempt counters, all reset at turn boundaries.
 *
 * @example
 * const turn = new TurnState();
 * await coordinator.run(calls, { turn });
 */
/** A {@link TurnState} as JSON: what a suspended turn keeps (never a secret). */
export interface TurnStateJson {
  readonly remembered_tool_answers: Readonly<Record<string, JsonValue>>;
  readonly remembered_permission_decisions: Readonly<Record<string, boolean>>;
  /**
   * The last attempt per `[tool_call_id, question_id]`, and per `[tool_call_id, "#<kind>/…"]` for
   * the permission and delivery prompts of a sub-agent the call hosts.
   */
  readonly attempts: readonly (readonly [string, string, number])[];
}

export class TurnState {
  /** "Remember for this turn" answers, keyed `<tool_name>.<question_id>`. Never secrets. */
  readonly remembered_tool_answers = new Map<string, JsonValue>();
  /** Remembered run/skip decisions, keyed `<tool_name>.__permission__` (`true` = run). */
  readonly remembered_permission_decisions = new Map<string, boolean>();
  // By tool call id, then question id: no key string to build and hash on every question.
  readonly #attempts = new Map<string, Map<string, number>>();

  /**
   * The next 1-based attempt for `(toolCallId, questionId)` in this turn. Each recorded
   * inquiry takes one, so ids stay unique even when a provider reuses a tool call id.
   */
  nextInquiryAttempt(toolCallId: string, questionId: string): number {
    let questions = this.#attempts.get(toolCallId);
    if (questions === undefined) {
      questions = new Map();
      this.#attempts.set(toolCallId, questions);
    }
    const next = (questions.get(questionId) ?? 0) + 1;
    questions.set(questionId, next);
    return next;
  }

  /** The state as JSON, kept by a suspended turn so that resuming continues it exactly. */
  toJSON(): TurnStateJson {
    return {
      remembered_tool_answers: ownRecord(this.remembered_tool_answers),
      remembered_permission_decisions: ownRecord(this.remembered_permission_decisions),
      attempts: [...this.#attempts].flatMap(([call, questions]) =>
        [...questions].map(([question, attempt]) => [call, question, attempt] as const),
      ),
    };
  }

  /** A turn state from {@link TurnState.toJSON}. */
  static fromJSON(json: TurnStateJson): TurnState {
    const turn = new TurnState();
    for (const [key, value] of Object.entries(json.remembered_tool_answers)) {
      turn.remembered_tool_answers.set(key, value);
    }
    for (const [key, value] of Object.entries(json.remembered_permission_decisions)) {
      turn.remembered_permission_decisions.set(key, value);
    }
    for (const [call, question, attempt] of json.attempts) {
      const questions = turn.#attempts.get(call) ?? new Map<string, number>();
      questions.set(question, attempt);
      turn.#attempts.set(call, questions);
    }
    return turn;
  }

  /** The answer remembered for a tool's question this turn, if any. */
  rememberedAnswer(toolName: string, questionId: string): JsonValue | undefined {
    return this.remembered_tool_answers.get(`${toolName}.${questionId}`);
  }

  /** Remembers a tool's answer for the rest of the turn. */
  rememberAnswer(toolName: string, questionId: string, answer: JsonValue): void {
    this.remembered_tool_answers.set(`${toolName}.${questionId}`, answer);
  }

  /** The remembered run (`true`) or skip (`false`) decision for a tool, if any. */
  rememberedPermission(toolName: string): boolean | undefined {
    return this.remembered_permission_decisions.get(`${toolName}.__permission__`);
  }

  /** Remembers a run/skip decision for the rest of the turn. */
  rememberPermission(toolName: string, run: boolean): void {
    this.remembered_permission_decisions.set(`${toolName}.__permission__`, run);
  }
}

function ownRecord<V>(map: ReadonlyMap<string, V>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const [key, value] of map) {
    Object.defineProperty(out, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
