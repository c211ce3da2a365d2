/**
 * Why the standalone prompt server did not start, by `kind`: `listen` — the address or port
 * could not be taken (`code` is Node's, e.g. `EADDRINUSE`, `EACCES`, `EADDRNOTAVAIL`).
 */
export interface WebPromptsError {
  readonly kind: "listen";
  /** What failed, e.g. `could not listen on 127.0.0.1:8123: the port is in use (EADDRINUSE)`. */
  readonly message: string;
  readonly code?: string;
}
