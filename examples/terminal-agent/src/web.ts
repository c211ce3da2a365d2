// `--web`: the demo's prompts on a web page instead of the terminal. The page runs on 127.0.0.1
// with a fresh token in its link; every prompt waits until the person has opened it.
import type { PromptBackend } from "@jp/coordinator";
import { createWebPrompts } from "@jp/prompt-web";

/** The page's prompt backend, and `close()` to stop its server once the demo is done. */
export interface WebBackend extends PromptBackend {
  close(): Promise<void>;
}

/**
 * Starts the prompt page and says where to open it (`say` writes to the terminal). Prompts wait
 * for the page as long as it takes, so the demo waits for the person there.
 */
export async function startWebBackend(say: (text: string) => void): Promise<WebBackend> {
  const started = await createWebPrompts({ waitForPageMs: Number.POSITIVE_INFINITY });
  if (started.isErr()) {
    say(`Could not start the prompt page: ${started.error.message}`);
    process.exit(1);
  }
  const web = started.value;
  say(`\nOpen this link in a browser to answer the prompts:\n\n  ${web.url}\n`);
  say("Waiting for the page to open…");
  web.on("page-connected", ({ pages }) => {
    if (pages === 1) say("The prompt page is open.");
  });
  const backend = web.backend({ title: "Release widgets" });
  return {
    isHumanReachable: () => backend.isHumanReachable(),
    ask: (request, options) => backend.ask(request, options),
    close: () => web.close(),
  };
}
