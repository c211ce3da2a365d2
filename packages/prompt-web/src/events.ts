import type { PromptRequest } from "@jp/coordinator";
import type { PromptReply } from "@jp/rpc";

/**
 * How a prompt left the page: the type of the person's reply (`answer`, `back`, `run`, `skip`,
 * …; never the answer itself), `aborted` (the coordinator's signal) or `unreachable` (no page came
 * back in time, or the server shut down).
 */
export type WebPromptOutcome = PromptReply["type"] | "aborted" | "unreachable";

/**
 * What the prompt server tells its host, e.g. for logs. No event carries an answer, a reply's
 * text or the session token, so logging them all is safe.
 */
export interface WebPromptsEvents {
  /** A page opened its live connection; `pages` is how many are open now. */
  "page-connected": (event: { readonly pages: number }) => void;
  /** A page's live connection closed (the tab closed, reloaded or lost the network). */
  "page-disconnected": (event: { readonly pages: number }) => void;
  /**
   * A prompt is waiting on the page. `request` is the prompt as asked, but without a question's
   * `initial` (when the person went back, it holds their earlier answer) and `error` (why it is
   * asked again; it quotes the answer refused).
   */
  "prompt-opened": (event: {
    readonly promptId: string;
    readonly conversationId: string;
    readonly request: PromptRequest;
  }) => void;
  /** A prompt left the page, and how. */
  "prompt-closed": (event: {
    readonly promptId: string;
    readonly conversationId: string;
    readonly kind: PromptRequest["kind"];
    readonly outcome: WebPromptOutcome;
  }) => void;
  /**
   * A prompt of the inbox (a stored, suspended turn, or a host waiting elsewhere) was answered on
   * the page; `outcome` is the reply's type, never the answer.
   */
  "inbox-answered": (event: {
    readonly conversation: string;
    readonly promptId: string;
    readonly kind: PromptRequest["kind"];
    readonly outcome: PromptReply["type"];
  }) => void;
  /**
   * A request was refused: `status` is the HTTP status sent, `reason` says why in words (a
   * missing or wrong token, a foreign Origin, a body too large, …). `path` has no query string.
   */
  "request-refused": (event: {
    readonly method: string;
    readonly path: string;
    readonly status: number;
    readonly reason: string;
  }) => void;
}
