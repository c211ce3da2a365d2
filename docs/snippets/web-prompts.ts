// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
// Type-checked, not run: it serves HTTP and waits for a person to open the page in a browser
// (packages/prompt-web's tests drive it with Chromium).
import type { ConversationStream } from "@jp/conversation";
import { type ExecutorSource, ToolCoordinator, type ToolsConfig } from "@jp/coordinator";

// What the host brings: the stream to record in, its tools.
declare const stream: ConversationStream;
declare const tools: ToolsConfig;
declare const executors: ExecutorSource;

// #region standalone
import { createWebPrompts } from "@jp/prompt-web";

const started = await createWebPrompts(); // { port?, host?, waitForPageMs?, … }
if (started.isErr()) throw new Error(started.error.message); // e.g. the port is in use
const web = started.value;
console.log(`Answer prompts at ${web.url}`); // http://127.0.0.1:PORT/#token=…
await web.waitForPage(); // optional: wait until the person opened the link

const coordinator = new ToolCoordinator({ stream, tools, executors, prompts: web.backend() });
// …
await web.close(); // ends the live streams; open prompts fail as unreachable
// #endregion
console.log(coordinator.tools);
