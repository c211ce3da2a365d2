import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);
const SCRIPT = new URL("./answer-elsewhere.ts", import.meta.url).pathname;

/**
 * Answers a stored prompt from another Node process (a file store's root, or a PostgreSQL URL);
 * resolves once that process exited, rejecting when the answer was not taken.
 */
export async function answerFromAnotherProcess(
  kind: "file" | "postgres",
  where: string,
  conversation: string,
  promptId: string,
  reply: unknown,
): Promise<void> {
  await run(
    process.execPath,
    [
      "--conditions=@jp/source",
      "--import",
      "tsx",
      SCRIPT,
      kind,
      where,
      conversation,
      promptId,
      JSON.stringify(reply),
    ],
    { timeout: 30_000 },
  );
}
