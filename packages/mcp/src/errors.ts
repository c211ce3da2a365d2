/**
 * An elicitation this client will not put in front of a person: its form schema is outside MCP's
 * flat subset (`unsupported-schema`), its URL is unsafe to offer (`unsafe-url`: not https, a
 * user name in it, unparseable), or a text in it is longer than a person is shown (`too-large`:
 * the message, a field's name, title, description, default or pattern, a choice). The server
 * receives `message` as an invalid-params error; no question is asked or recorded.
 */
export interface UnsupportedElicitation {
  readonly kind: "unsupported-schema" | "unsafe-url" | "too-large";
  readonly message: string;
}

/**
 * Connecting to an MCP server failed (`connect-failed`: the process did not start, the handshake
 * or version negotiation failed) or its tools could not be listed (`list-tools-failed`). `server`
 * is the name the host gave the server.
 */
export interface McpConnectError {
  readonly kind: "connect-failed" | "list-tools-failed";
  readonly server: string;
  readonly message: string;
  readonly cause?: unknown;
}
