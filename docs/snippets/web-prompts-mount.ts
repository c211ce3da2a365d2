// biome-ignore-all assist/source/organizeImports: the imports the docs show stay in their region
// Type-checked, not run: a fragment of the host's own HTTP server (packages/prompt-web's tests
// run the handler).
import http from "node:http";

// The host's own request handler, for every other path.
declare function app(req: http.IncomingMessage, res: http.ServerResponse): void;

// #region mount
import { createWebPromptHandler } from "@jp/prompt-web";

const web = createWebPromptHandler({ basePath: "/prompts" });
http.createServer((req, res) => web.handle(req, res) || app(req, res)).listen(8080);
// or, with Express: app.use((req, res, next) => web.handle(req, res, next));
console.log(`open http://localhost:8080${web.pagePath}`); // /prompts/#token=…
// #endregion
