/** The two kinds of request/response pairs in a stream. */
export type Family = "tool_call" | "inquiry";
