import type { JsonValue } from "@jp/conversation";

/**
 * What the coordinator remembers during one turn. Build a new one per turn: remembered answers
 * and decisions, and the inquiry attempt counters, all reset at turn boundaries.
 *
 * @example
 * const turn = new TurnState();
 * await coordinator.run(calls, { turn });
 */
export class TurnState {
  /** "Remember for this turn" answers, keyed `<tool_name>.<question_id>`. Never secrets. */
  readonly remembered_tool_answers = new Map<string, JsonValue>();
  /** Remembered run/skip decisions, keyed `<tool_name>.__permission__` (`true` = run). */
  readonly remembered_permission_decisions = new Map<string, boolean>();
  readonly #attempts = new Map<string, number>();

  /**
   * The next 1-based attempt for `(toolCallId, questionId)` in this turn. Each recorded
   * inquiry takes one, so ids stay unique even when a provider reuses a tool call id.
   */
  nextInquiryAttempt(toolCallId: string, questionId: string): number {
    const key = `${toolCallId}\u0000${questionId}`;
    const next = (this.#attempts.get(key) ?? 0) + 1;
    this.#attempts.set(key, next);
    return next;
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
